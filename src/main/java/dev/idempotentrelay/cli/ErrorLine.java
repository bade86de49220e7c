package dev.idempotentrelay.cli;

/** The one line on stderr of a command that failed: {@code idempotent-relay: <command>: <what is wrong>}. */
final class ErrorLine {

    static final String PREFIX = "idempotent-relay: ";

    private ErrorLine() {
    }

    /** Prints {@code line}, which starts with the command's name, after the program's. */
    static void print(String line) {
        System.err.println(PREFIX + line);
    }
}
