package dev.idempotentrelay.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import org.apache.camel.Exchange;

/**
 * The span an exchange is in now (the route it is passing, or the transfer's root span), linked to the one it was in
 * before, in the exchange property {@link #PROPERTY}. A route entered through {@code direct:} puts its span here and
 * takes it out when the exchange leaves it; a split's copy of an exchange changes its own property, not its parent's.
 */
record ActiveSpan(Span span, ActiveSpan parent, String traceId, String spanId, boolean sampled) {

    static final String PROPERTY = "relay.tracing.span";

    /** Marks an exchange that is not traced (the admin API's, the ledger watch's), so that no route it enters is. */
    static final ActiveSpan UNTRACED = new ActiveSpan(Span.getInvalid(), null, "", "", false);

    static ActiveSpan of(Span span, ActiveSpan parent) {
        SpanContext context = span.getSpanContext();
        return new ActiveSpan(span, parent, context.getTraceId(), context.getSpanId(), context.isSampled());
    }

    static ActiveSpan on(Exchange exchange) {
        return exchange.getProperty(PROPERTY, ActiveSpan.class);
    }

    void activate(Exchange exchange) {
        exchange.setProperty(PROPERTY, this);
    }

    /** Marks {@code span} as an error by {@code failure}, when there is one: the exception recorded, its class the status's message. */
    static void failed(Span span, Throwable failure) {
        if (failure != null) {
            span.recordException(failure);
            span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
        }
    }
}
