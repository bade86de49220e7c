package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/** Counts the reply a channel gets, by its code (variable {@code rspCode}), in {@code relay_replies_total{code}}. */
public class ReplyCounter implements Processor {

    private final RelayMetrics metrics;

    public ReplyCounter(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        String code = exchange.getVariable("rspCode", String.class);
        metrics.reply(code == null ? "none" : code);
    }
}
