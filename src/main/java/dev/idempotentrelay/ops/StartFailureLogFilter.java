package dev.idempotentrelay.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Drops the ERROR that Camel logs, with the whole stack trace (some 80 lines), when the context fails to start: the
 * command that started the relay says why in one line on stderr and exits 2. Every other event passes.
 */
public final class StartFailureLogFilter extends Filter<ILoggingEvent> {

    static final String CAMEL_CONTEXT_LOGGER = "org.apache.camel.impl.engine.AbstractCamelContext";
    static final String START_FAILURE = "Error starting CamelContext";

    @Override
    public FilterReply decide(ILoggingEvent event) {
        if (event.getLevel() == Level.ERROR && CAMEL_CONTEXT_LOGGER.equals(event.getLoggerName())
                && event.getMessage() != null && event.getMessage().startsWith(START_FAILURE)) {
            return FilterReply.DENY;
        }
        return FilterReply.NEUTRAL;
    }
}
