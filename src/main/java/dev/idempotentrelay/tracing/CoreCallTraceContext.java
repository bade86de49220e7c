package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.http.HttpRequest;

/**
 * Joins the core's trace to the relay's: every request of the core's HTTP client (the transfer's POST, resolve's
 * inquiry GET) carries the W3C {@code traceparent} of its client span; the span is named by the request's method and
 * gets its URL and the answer's status. The span is the one {@link EndpointSpans} opened on this thread just before
 * camel-http sends on it; the routes' HTTP steps skip the exchange's headers ({@code skipRequestHeaders}), so the
 * header is added by the client, not the message.
 */
final class CoreCallTraceContext implements HttpClientConfigurer {

    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
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
                if (span.isRecording()) {
                    describe(span, request);
                }
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

    private static void describe(Span span, HttpRequest request) {
        span.updateName(request.getMethod());
        span.setAttribute(HTTP_METHOD, request.getMethod());
        try {
            URI url = request.getUri();
            span.setAttribute(URL, url.toString());
            span.setAttribute(SERVER, url.getHost());
            span.setAttribute(PORT, (long) (url.getPort() > 0 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80));
        } catch (URISyntaxException e) {
            span.setAttribute(URL, request.getRequestUri());
        }
    }

    private static void header(HttpRequest request, String name, String value) {
        if (request != null) {
            request.setHeader(name, value);
        }
    }
}
