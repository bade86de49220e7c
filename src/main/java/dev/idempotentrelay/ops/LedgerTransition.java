package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * One ledger transition, recorded by the route step right after the SQL statement that made it: counts the
 * rows it moved (the statement's update count) in {@code relay_state_transitions_total{from,to}} and, on a
 * transfer's exchange, adds it to variable {@code stateChange} (such as {@code none -> SENT -> DONE}) for the
 * transfer's log line. A statement that moved no row records nothing. Bound once per transition, such as
 * {@code noneToSent} or {@code sentToDone}.
 */
public class LedgerTransition implements Processor {

    private final RelayMetrics metrics;
    private final String from;
    private final String to;

    public LedgerTransition(RelayMetrics metrics, String from, String to) {
        this.metrics = metrics;
        this.from = from;
        this.to = to;
    }

    @Override
    public void process(Exchange exchange) {
        Integer rows = exchange.getMessage().getHeader("CamelSqlUpdateCount", Integer.class);
        if (rows == null || rows < 1) {
            return;
        }
        metrics.transition(from, to, rows);
        String change = exchange.getVariable("stateChange", String.class);
        exchange.setVariable("stateChange", change == null ? from + " -> " + to : change + " -> " + to);
    }
}
