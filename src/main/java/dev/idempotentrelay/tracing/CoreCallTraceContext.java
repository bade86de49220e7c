package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.http.HttpRequest;

/**
 * Joins the core's trace to the relay's: every request of the core's HTTP client (the transfer's POST, resolve's
 * inquiry GET) carries the W3C {@code traceparent} of its client span, and the span gets the answer's status. The span
 * is the one {@link EndpointSpans} opened on this thread just before camel-http sends on it; the routes' HTTP steps skip
 * the exchange's headers ({@code skipRequestHeaders}), so the header is added by the client, not the message.
 */
final class CoreCallTraceContext implements HttpClientConfigurer {

    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");

    private static final ThreadLocal<Span> CALL = new ThreadLocal<>();

    static void begin(Span span) {
        CALL.set(span);
    }

    static void end() {
        CALL.remove();
    }

    @Override
    public void configureHttpClient(HttpClientBuilder client) {
        client.addRequestInterceptorLast((request, entity, context) -> {
            Span span = CALL.get();
            if (span != null) {
                W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), request, CoreCallTraceContext::header);
            }
        });
        client.addResponseInterceptorLast((response, entity, context) -> {
            Span span = CALL.get();
            if (span != null) {
                span.setAttribute(STATUS, (long) response.getCode());
                if (response.getCode() >= 500) {
                    span.setStatus(StatusCode.ERROR, "HTTP " + response.getCode());
                }
            }
        });
    }

    private static void header(HttpRequest request, String name, String value) {
        if (request != null) {
            request.setHeader(name, value);
        }
    }
}
