package dev.idempotentrelay.tracing;

import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.spi.InterceptStrategy;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.processor.DelegateAsyncProcessor;
import org.slf4j.MDC;

/**
 * Puts the trace id and the span id of the span an exchange is in into the logging MDC (keys {@code trace_id} and
 * {@code span_id}, as OpenTelemetry's log bridges name them) before each of its steps, so that the INFO line of a
 * transfer, and every line written on its path, leads to its trace (logback.xml prints them). Only sampled spans: an
 * id of a trace that was not exported leads nowhere. A step of an exchange without one takes out ids left on its thread.
 */
final class TraceMdcInterceptStrategy implements InterceptStrategy {

    static final String TRACE_ID = "trace_id";
    static final String SPAN_ID = "span_id";

    @Override
    public Processor wrapProcessorInInterceptors(CamelContext context, NamedNode definition, Processor target, Processor nextTarget) {
        return new DelegateAsyncProcessor(AsyncProcessorConverterHelper.convert(target)) {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                ActiveSpan span = ActiveSpan.on(exchange);
                if (span != null && span.sampled()) {
                    if (!span.spanId().equals(MDC.get(SPAN_ID))) {
                        MDC.put(TRACE_ID, span.traceId());
                        MDC.put(SPAN_ID, span.spanId());
                    }
                } else if (MDC.get(TRACE_ID) != null) {
                    MDC.remove(TRACE_ID);
                    MDC.remove(SPAN_ID);
                }
                return processor.process(exchange, callback);
            }
        };
    }
}
