package dev.idempotentrelay.ops;

import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.spi.InterceptStrategy;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.support.processor.DelegateAsyncProcessor;
import org.slf4j.MDC;

/**
 * Puts the GUID of the transfer that an exchange carries (variable {@code guid}) into the logging MDC, key
 * {@code guid}, from the first step that runs with it until the exchange is done: every log line written on a
 * transfer's path, by a route's log step or by any library a step calls, carries its GUID, and no line written on
 * that thread after it. This is what camel-mdc does for a header with {@code camel.mdc.customExchangeHeaders}; that
 * module is not served here, and the older {@code camel.main.use-mdc-logging} is deprecated and copies no header into
 * the MDC.
 * <p>
 * The GUID is set once and taken out when the exchange completes, not around each step: Camel's engine runs the steps
 * inside a choice or a route called through {@code direct:} after the enclosing step has returned, so setting and
 * restoring it around every step did so for nearly every step (2.9% of the relay's Java samples, BENCHMARKS.md). A
 * step of an exchange without a GUID takes out one left on its thread.
 */
public class GuidMdcInterceptStrategy implements InterceptStrategy {

    public static final String KEY = "guid";

    /** Takes the GUID out of the MDC of the thread that completes the exchange. */
    private static final Synchronization TAKE_OUT = new SynchronizationAdapter() {
        @Override
        public void onDone(Exchange exchange) {
            MDC.remove(KEY);
        }
    };

    @Override
    public Processor wrapProcessorInInterceptors(CamelContext context, NamedNode definition, Processor target,
            Processor nextTarget) {
        return new DelegateAsyncProcessor(AsyncProcessorConverterHelper.convert(target)) {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                // the variables' map itself: Exchange.getVariable parses the name for a repository prefix, on every step
                Object guid = exchange.hasVariables() ? exchange.getVariables().get(KEY) : null;
                String current = MDC.get(KEY);
                if (!(guid instanceof String)) {
                    if (current != null) {
                        MDC.remove(KEY); // another exchange's, on this thread
                    }
                } else if (!guid.equals(current)) {
                    MDC.put(KEY, (String) guid);
                    exchange.getExchangeExtension().addOnCompletion(TAKE_OUT);
                }
                return processor.process(exchange, callback);
            }
        };
    }
}
