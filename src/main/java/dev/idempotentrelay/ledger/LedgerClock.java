package dev.idempotentrelay.ledger;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.apache.camel.Exchange;
import org.apache.camel.support.ExpressionAdapter;

/**
 * The ledger's timestamps: UTC in the {@code datetime('now')} format of SQLite ({@code yyyy-MM-dd HH:mm:ss}),
 * written by the relay as a parameter so that the SQL stays portable. The routes set header {@code now} from it
 * with the {@code ref} language ({@code ref: expression: ledgerClock}): an expression, because the Simple
 * language's date function builds a new formatter and time zone on every call, and a bean method call costs a
 * bean binding, on the path of every transfer.
 */
public class LedgerClock extends ExpressionAdapter {

    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    public String now() {
        return LocalDateTime.now(ZoneOffset.UTC).format(FORMAT);
    }

    @Override
    public Object evaluate(Exchange exchange) {
        return now();
    }
}
