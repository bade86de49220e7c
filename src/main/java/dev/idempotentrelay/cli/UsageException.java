package dev.idempotentrelay.cli;

/** Bad arguments or an unusable resource: one line on stderr, exit 2. */
public class UsageException extends Exception {

    public UsageException(String message) {
        super(message);
    }
}
