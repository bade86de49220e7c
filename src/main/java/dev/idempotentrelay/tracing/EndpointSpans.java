package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import dev.idempotentrelay.ledger.LedgerWriteEndpoint;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Ordered;
import org.apache.camel.Processor;
import org.apache.camel.component.http.HttpEndpoint;
import org.apache.camel.component.sql.SqlEndpoint;
import org.apache.camel.processor.SendDynamicProcessor;
import org.apache.camel.processor.SendProcessor;
import org.apache.camel.spi.InterceptStrategy;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.processor.DelegateAsyncProcessor;

/**
 * A client span for each ledger statement and each call to the core, child of the span of the route whose step sends
 * it: the route steps {@code to: sql:...} and {@code to: ledger-write:...} (a database span named by its SQL file,
 * {@code db.system} and the file's name as {@code db.operation.name}) and the steps to the core's HTTP endpoint,
 * {@code to} and {@code toD} (an HTTP span; {@link CoreCallTraceContext} names it by the request's method, sends its
 * {@code traceparent} with the request and records the URL and the status). A step that fails marks its span as an
 * error. An intercept strategy that wraps only those steps, once, when their routes are made: every other step, and
 * every other send ({@code direct:}, {@code log:}), runs as it would untraced. Camel's exchange sending and sent
 * events (camel-tracing's way, and this class's before) are raised for every send of every step once a notifier
 * listens; side by side the two ways cost about the same (docs/performance.md#traces).
 */
final class EndpointSpans implements InterceptStrategy, Ordered {

    static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system");
    static final AttributeKey<String> DB_OPERATION = AttributeKey.stringKey("db.operation.name");

    private final Tracer tracer;
    private final String dbSystem;

    EndpointSpans(Tracer tracer, String dbSystem) {
        this.tracer = tracer;
        this.dbSystem = dbSystem;
    }

    /** The last in order, so the first to wrap: the step it is given is the sending processor itself. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST;
    }

    @Override
    public Processor wrapProcessorInInterceptors(CamelContext context, NamedNode definition, Processor target, Processor nextTarget) {
        if (target instanceof SendProcessor send) {
            Endpoint endpoint = send.getDestination();
            if (endpoint instanceof HttpEndpoint) {
                return traced(target, null);
            }
            if (endpoint instanceof SqlEndpoint || endpoint instanceof LedgerWriteEndpoint) {
                return traced(target, sqlFile(endpoint.getEndpointUri()));
            }
        } else if (target instanceof SendDynamicProcessor send) {
            String uri = context.resolvePropertyPlaceholders(send.getUri());
            if (uri.startsWith("http:") || uri.startsWith("https:")) {
                return traced(target, null);
            }
        }
        return target;
    }

    /** The step, in a span of its own while the exchange is in a traced route's: a database span for a file, else HTTP. */
    private Processor traced(Processor step, String file) {
        return new DelegateAsyncProcessor(AsyncProcessorConverterHelper.convert(step)) {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                ActiveSpan route = ActiveSpan.on(exchange);
                boolean http = file == null;
                if (route == null || route == ActiveSpan.UNTRACED || (!http && !route.sampled())) {
                    return processor.process(exchange, callback);
                }
                // a trace the sampler left out gets no span; its core call still sends its traceparent (flag 00), so
                // that the core's own sampler can follow the relay's
                Span span = route.sampled() ? clientSpan(route, file) : null;
                if (http) {
                    // the HTTP producer sends on this thread: its request interceptor finds the span here
                    CoreCallTraceContext.begin(span != null ? span : route.span());
                }
                return processor.process(exchange, doneSync -> {
                    if (http) {
                        CoreCallTraceContext.end();
                    }
                    if (span != null) {
                        ActiveSpan.failed(span, exchange.getException());
                        span.end();
                    }
                    callback.done(doneSync);
                });
            }
        };
    }

    /** A database span named by its SQL file, or an HTTP span ({@code file} null), child of the route's span. */
    private Span clientSpan(ActiveSpan route, String file) {
        var builder = tracer.spanBuilder(file != null ? file : "HTTP").setSpanKind(SpanKind.CLIENT)
                .setParent(Context.root().with(route.span()));
        if (file != null) {
            builder.setAttribute(DB_SYSTEM, dbSystem).setAttribute(DB_OPERATION, file);
        }
        return builder.startSpan();
    }

    /** The SQL file's name without its folder and {@code .sql}: {@code claim-new-guid} of {@code ...sql/claim-new-guid.sql}. */
    static String sqlFile(String uri) {
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        String file = path.substring(path.lastIndexOf('/') + 1);
        return file.endsWith(".sql") ? file.substring(0, file.length() - 4) : file;
    }
}
