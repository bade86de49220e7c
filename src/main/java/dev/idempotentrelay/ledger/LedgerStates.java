package dev.idempotentrelay.ledger;

import java.util.List;

/**
 * The states of a ledger row (SPEC section 3 and 5) and the most rows one listing returns: the one definition
 * that the CLI, the admin routes (through Simple's {@code ${type:...}}) and the metrics use. The database's own
 * CHECK constraint in the schema files says the same for the rows it stores.
 */
public final class LedgerStates {

    /** Every state, in the order of a row's life. */
    public static final List<String> ALL = List.of("RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED");
    /** The states a row waits in for the relay, the core or a person: all but DONE (GET /metrics counts these). */
    public static final List<String> UNDECIDED = List.of("RECEIVED", "SENT", "UNKNOWN", "FAILED");
    /** The states as one comma-separated list, for Simple's {@code in} operator. */
    public static final String NAMES = String.join(",", ALL);
    /** The most rows one listing (GET /ledger, ledger list) returns. */
    public static final int LIST_LIMIT = 1000;
    /** The limits a listing takes, as a range for Simple's {@code range} operator. */
    public static final String LIST_LIMITS = "1.." + LIST_LIMIT;

    private LedgerStates() {
    }
}
