package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;

/**
 * The ledger's transitions, each recorded by the route step right after the SQL statement that made it, which names
 * the transition: {@code bean ledgerTransition, method record(*, 'none', 'SENT')}. Counts the rows the statement
 * moved (its update count) in {@code relay_state_transitions_total{from,to}} and, on a transfer's exchange, adds the
 * transition to variable {@code stateChange} (such as {@code none -> SENT -> DONE}) for the transfer's log line. A
 * statement that moved no row records nothing.
 */
public class LedgerTransition {

    private final RelayMetrics metrics;

    public LedgerTransition(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    public void record(Exchange exchange, String from, String to) {
        Integer rows = exchange.getMessage().getHeader("CamelSqlUpdateCount", Integer.class);
        if (rows == null || rows < 1) {
            return;
        }
        metrics.transition(from, to, rows);
        String change = exchange.getVariable("stateChange", String.class);
        exchange.setVariable("stateChange", change == null ? from + " -> " + to : change + " -> " + to);
    }
}
