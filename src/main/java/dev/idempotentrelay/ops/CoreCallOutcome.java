package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;

/**
 * Records one call to the core where the route has decided what became of it: its time (since the step before the
 * call, {@link CoreCallClock}) in {@code relay_core_call_seconds{call,outcome}}, and the call as the relay's last one
 * for GET /health ({@link CoreCallStatus}); the time, and an unanswered call's outcome, in variable {@code coreTime}
 * for the transfer's log line ("core 12 ms", "core 36 ms, not-reached"). The route's step names the call and the
 * outcome: {@code bean coreCallOutcome, method record(*, 'transfer', 'answered')}; in a doCatch block the caught
 * exception is the error.
 */
public class CoreCallOutcome {

    private final RelayMetrics metrics;
    private final CoreCallStatus coreCalls;

    public CoreCallOutcome(RelayMetrics metrics, CoreCallStatus coreCalls) {
        this.metrics = metrics;
        this.coreCalls = coreCalls;
    }

    public void record(Exchange exchange, String call, String outcome) {
        Long started = exchange.getVariable(CoreCallClock.STARTED, Long.class);
        long millis = started == null ? 0 : (System.nanoTime() - started) / 1_000_000;
        metrics.coreCall(call, outcome, millis);
        Exception caught = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        boolean answered = outcome.equals("answered");
        coreCalls.record(call, answered, answered || caught == null ? null : caught.toString());
        exchange.setVariable("coreTime", answered ? millis + " ms" : millis + " ms, " + outcome);
    }
}
