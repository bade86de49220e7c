package dev.idempotentrelay.ops;

import org.apache.camel.component.http.HttpEndpoint;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSendingEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * Times every call to the core and only times it: after each send to an HTTP endpoint it leaves the time taken
 * in variables {@code coreMillis} (a number, for the core-call metric that the route's next step records) and
 * {@code coreTime} (such as {@code 12 ms}, for the transfer's log line). What the call's outcome means is decided
 * by the routes.
 */
public class CoreCallTimer extends EventNotifierSupport {

    public CoreCallTimer() {
        setIgnoreCamelContextEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeCompletedEvent(true);
        setIgnoreExchangeFailedEvents(true);
        setIgnoreExchangeRedeliveryEvents(true);
        setIgnoreStepEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        // the sending event must be taken too: Camel times a send only when a notifier wants its sending event
        if (event instanceof ExchangeSendingEvent sending) {
            return sending.getEndpoint() instanceof HttpEndpoint;
        }
        return event instanceof ExchangeSentEvent sent && sent.getEndpoint() instanceof HttpEndpoint;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeSentEvent sent) {
            long millis = sent.getTimeTaken();
            sent.getExchange().setVariable("coreMillis", millis);
            sent.getExchange().setVariable("coreTime", millis + " ms");
        }
    }
}
