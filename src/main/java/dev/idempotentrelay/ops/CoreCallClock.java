package dev.idempotentrelay.ops;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Starts the clock of one call to the core: the step just before the call leaves the time in variable
 * {@code coreCallStarted}, and the step that records what became of the call ({@link CoreCallOutcome}) reads it.
 */
public class CoreCallClock implements Processor {

    static final String STARTED = "coreCallStarted";

    @Override
    public void process(Exchange exchange) {
        exchange.setVariable(STARTED, System.nanoTime());
    }
}
