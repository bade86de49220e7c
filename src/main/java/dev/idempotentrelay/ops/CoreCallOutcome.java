package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Records one call to the core where the route has decided what became of it: its time (variable
 * {@code coreMillis}, left by {@link CoreCallTimer}) in {@code relay_core_call_seconds{call,outcome}}, and the
 * call as the relay's last one for GET /health ({@link CoreCallStatus}); an unanswered call's outcome is added to
 * variable {@code coreTime} for the transfer's log line. Bound once per call and outcome, such as
 * {@code transferAnswered} or {@code inquiryNotReached}; in a doCatch block the caught exception is the error.
 */
public class CoreCallOutcome implements Processor {

    private final RelayMetrics metrics;
    private final CoreCallStatus coreCalls;
    private final String call;
    private final String outcome;

    public CoreCallOutcome(RelayMetrics metrics, CoreCallStatus coreCalls, String call, String outcome) {
        this.metrics = metrics;
        this.coreCalls = coreCalls;
        this.call = call;
        this.outcome = outcome;
    }

    @Override
    public void process(Exchange exchange) {
        Long millis = exchange.getVariable("coreMillis", Long.class);
        metrics.coreCall(call, outcome, millis == null ? 0 : millis);
        Exception caught = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        boolean answered = outcome.equals("answered");
        coreCalls.record(call, answered, answered || caught == null ? null : caught.toString());
        if (!answered) {
            // for the transfer's log line: "core 36 ms, not-reached"
            exchange.setVariable("coreTime", exchange.getVariable("coreTime", String.class) + ", " + outcome);
        }
    }
}
