package dev.idempotentrelay.ledger;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The ledger's timestamps: UTC in the {@code datetime('now')} format of SQLite ({@code yyyy-MM-dd HH:mm:ss}),
 * written by the relay as a parameter so that the SQL stays portable. A bean, because the Simple language's
 * date function builds a new formatter and time zone on every call, on the path of every transfer.
 */
public class LedgerClock {

    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    public String now() {
        return LocalDateTime.now(ZoneOffset.UTC).format(FORMAT);
    }
}
