package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import dev.idempotentrelay.ledger.LedgerWriteEndpoint;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.component.http.HttpEndpoint;
import org.apache.camel.component.sql.SqlEndpoint;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSendingEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * A client span for each ledger statement and each call to the core, child of the span of the route whose step sends
 * it: Camel's exchange sending and sent events (camel-tracing's way), for the endpoints {@code sql:} and
 * {@code ledger-write:} (a database span named by its SQL file, {@code db.system} and the file's name as
 * {@code db.operation.name}) and {@code http:} (an HTTP span named by its method; {@link CoreCallTraceContext} sends its
 * {@code traceparent} with the request and records the status). A step that fails marks its span as an error.
 */
final class EndpointSpans extends EventNotifierSupport {

    static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system");
    static final AttributeKey<String> DB_OPERATION = AttributeKey.stringKey("db.operation.name");
    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");

    private static final String CLIENT_SPAN = "relay.tracing.client-span";

    private final Tracer tracer;
    private final String dbSystem;
    /** The SQL file of each ledger endpoint (a route's fixed sql: and ledger-write: URIs), found once. */
    private final Map<String, String> sqlFiles = new ConcurrentHashMap<>();

    EndpointSpans(Tracer tracer, String dbSystem) {
        this.tracer = tracer;
        this.dbSystem = dbSystem;
        setIgnoreCamelContextEvents(true);
        setIgnoreCamelContextInitEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeCompletedEvent(true);
        setIgnoreExchangeFailedEvents(true);
        setIgnoreExchangeRedeliveryEvents(true);
        setIgnoreExchangeAsyncProcessingStartedEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeSendingEvent || event instanceof ExchangeSentEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeSendingEvent sending) {
            sending(sending.getExchange(), sending.getEndpoint());
        } else if (event instanceof ExchangeSentEvent sent) {
            sent(sent.getExchange(), sent.getEndpoint());
        }
    }

    private void sending(Exchange exchange, Endpoint endpoint) {
        boolean http = endpoint instanceof HttpEndpoint;
        if (!http && !(endpoint instanceof SqlEndpoint) && !(endpoint instanceof LedgerWriteEndpoint)) {
            return; // direct:, log:, ...: their routes have spans of their own
        }
        ActiveSpan route = ActiveSpan.on(exchange);
        if (route == null || route == ActiveSpan.UNTRACED) {
            return;
        }
        Span span;
        if (http) {
            HttpEndpoint core = (HttpEndpoint) endpoint;
            URI url = core.getHttpUri();
            String method = core.getHttpMethod() != null ? core.getHttpMethod().name() : "GET";
            span = tracer.spanBuilder(method).setSpanKind(SpanKind.CLIENT).setParent(Context.root().with(route.span()))
                    .setAttribute(HTTP_METHOD, method).setAttribute(URL, url.toString())
                    .setAttribute(SERVER, url.getHost()).setAttribute(PORT, (long) url.getPort()).startSpan();
            // the HTTP producer sends on this thread: its request interceptor finds the span here
            CoreCallTraceContext.begin(span);
        } else {
            String file = sqlFiles.computeIfAbsent(endpoint.getEndpointUri(), EndpointSpans::sqlFile);
            span = tracer.spanBuilder(file).setSpanKind(SpanKind.CLIENT).setParent(Context.root().with(route.span()))
                    .setAttribute(DB_SYSTEM, dbSystem).setAttribute(DB_OPERATION, file).startSpan();
        }
        exchange.setProperty(CLIENT_SPAN, span);
    }

    private static void sent(Exchange exchange, Endpoint endpoint) {
        Span span = exchange.getProperty(CLIENT_SPAN, Span.class);
        if (span == null) {
            return;
        }
        exchange.removeProperty(CLIENT_SPAN);
        if (endpoint instanceof HttpEndpoint) {
            CoreCallTraceContext.end();
        }
        Throwable failure = exchange.getException();
        if (failure != null) {
            span.recordException(failure);
            span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
        }
        span.end();
    }

    /** The SQL file's name without its folder and {@code .sql}: {@code claim-new-guid} of {@code ...sql/claim-new-guid.sql}. */
    static String sqlFile(String uri) {
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        String file = path.substring(path.lastIndexOf('/') + 1);
        return file.endsWith(".sql") ? file.substring(0, file.length() - 4) : file;
    }
}
