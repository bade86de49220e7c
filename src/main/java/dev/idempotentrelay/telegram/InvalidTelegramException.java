package dev.idempotentrelay.telegram;

/** A request whose header is readable but whose fields break SPEC section 2: answered E400, nothing stored. */
public class InvalidTelegramException extends Exception {

    public InvalidTelegramException(String reason) {
        super(reason);
    }
}
