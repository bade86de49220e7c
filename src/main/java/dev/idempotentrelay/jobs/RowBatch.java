package dev.idempotentrelay.jobs;

import dev.idempotentrelay.ops.RelayMetrics;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * One batch of a statement of the timed work that runs batch after batch, each its own short transaction (SPEC section
 * 5), recorded by the route step right after it: the rows it moved (the statement's update count) go to variable
 * {@code batchRows}, which the route's loop compares with {@code batchSize} to know whether more may be due, are added
 * to the run's total in the variable this step is bound with, and are counted in
 * {@code relay_state_transitions_total{from,to}}. Bound once per batched statement, such as {@code staleSentBatch}.
 */
public class RowBatch implements Processor {

    private final RelayMetrics metrics;
    private final String from;
    private final String to;
    private final String total;

    public RowBatch(RelayMetrics metrics, String from, String to, String total) {
        this.metrics = metrics;
        this.from = from;
        this.to = to;
        this.total = total;
    }

    @Override
    public void process(Exchange exchange) {
        int rows = rows(exchange);
        exchange.setVariable("batchRows", rows);
        Integer before = exchange.getVariable(total, Integer.class);
        exchange.setVariable(total, (before == null ? 0 : before) + rows);
        if (rows > 0) {
            metrics.transition(from, to, rows);
        }
    }

    /** The update count of the statement the exchange ran last. */
    static int rows(Exchange exchange) {
        return exchange.getMessage().getHeader("CamelSqlUpdateCount", 0, Integer.class);
    }
}
