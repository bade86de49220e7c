package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Route;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.RoutePolicySupport;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * A span for each route an exchange passes, named by the route's id as in the route pictures, child of the span of
 * the route that called it. An exchange from the channel listener (netty) first opens the transfer's root span,
 * {@code transfer}, ended when the exchange is done, with the channel, the GUID, the state change and the reply code:
 * an E-code marks it as an error. An exchange of a timed route (Quartz) or of a one-shot command (a direct: route
 * called from outside) is a trace of its own, rooted at its first route; the admin API's and the ledger watch's
 * exchanges (timer, rest, platform-http, and the probe commit that GET /health sends to) are not traced. A trace that
 * the sampler leaves out makes no span beyond its first: that one stands for the routes it passes. Camel's own way of tracing routes (camel-tracing's
 * TracingRoutePolicy), applied to every route by one factory: the route files stay as they are.
 */
final class RouteSpans implements RoutePolicyFactory {

    static final AttributeKey<String> GUID = AttributeKey.stringKey("relay.guid");
    static final AttributeKey<String> CHANNEL = AttributeKey.stringKey("relay.channel");
    static final AttributeKey<String> STATE_CHANGE = AttributeKey.stringKey("relay.state_change");
    static final AttributeKey<String> REPLY_CODE = AttributeKey.stringKey("relay.reply_code");

    /** The ledger watch's probe commit, sent to by GET /health and the watch's timer: not a trace. */
    private static final String HEALTH_PROBE = "probe-ledger-commit";

    private final Tracer tracer;

    RouteSpans(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext camelContext, String routeId, NamedNode route) {
        return new RoutePolicySupport() {
            @Override
            public void onExchangeBegin(Route route, Exchange exchange) {
                begin(route, exchange);
            }

            @Override
            public void onExchangeDone(Route route, Exchange exchange) {
                done(route, exchange);
            }
        };
    }

    private void begin(Route route, Exchange exchange) {
        ActiveSpan current = ActiveSpan.on(exchange);
        if (current == ActiveSpan.UNTRACED) {
            return;
        }
        if (current == null) {
            String from = route.getEndpoint().getEndpointUri();
            if (from.startsWith("timer:") || from.startsWith("rest:") || from.startsWith("platform-http:")
                    || route.getRouteId().equals(HEALTH_PROBE)) {
                ActiveSpan.UNTRACED.activate(exchange);
                return;
            }
            if (from.startsWith("netty:")) {
                Span root = tracer.spanBuilder("transfer").setSpanKind(SpanKind.SERVER).setNoParent().startSpan();
                current = ActiveSpan.of(root, null);
                exchange.getExchangeExtension().addOnCompletion(endTransfer(current));
            }
        }
        if (current != null && !current.sampled()) {
            // a trace the sampler left out: its root stands for every route it passes (the core still gets its
            // traceparent, flag 00), and none of them makes a span that nobody records
            current.activate(exchange);
            return;
        }
        var span = tracer.spanBuilder(route.getRouteId());
        if (current == null) {
            span.setNoParent();
        } else {
            span.setParent(Context.root().with(current.span()));
        }
        ActiveSpan.of(span.startSpan(), current).activate(exchange);
    }

    private static void done(Route route, Exchange exchange) {
        ActiveSpan current = ActiveSpan.on(exchange);
        if (current == null || !current.sampled()) {
            return; // not traced, or left out by the sampler: no span of this route's to end
        }
        ActiveSpan.failed(current.span(), exchange.getException());
        current.span().end();
        if (current.parent() != null) {
            current.parent().activate(exchange);
        } else {
            exchange.removeProperty(ActiveSpan.PROPERTY);
        }
    }

    /** Ends the transfer's root span when its exchange is done: after its reply was handed to the channel listener. */
    private static Synchronization endTransfer(ActiveSpan root) {
        return new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange exchange) {
                Span span = root.span();
                String code = exchange.getVariable("rspCode", String.class);
                set(span, GUID, exchange.getVariable("guid", String.class));
                set(span, CHANNEL, exchange.getVariable("channel", String.class));
                set(span, STATE_CHANGE, exchange.getVariable("stateChange", String.class));
                set(span, REPLY_CODE, code);
                if (code != null && !code.equals("0000")) {
                    span.setStatus(StatusCode.ERROR, code);
                } else {
                    ActiveSpan.failed(span, exchange.getException());
                }
                span.end();
            }
        };
    }

    private static void set(Span span, AttributeKey<String> key, String value) {
        if (value != null) {
            span.setAttribute(key, value);
        }
    }
}
