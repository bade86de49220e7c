package dev.idempotentrelay.ops;

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
 * Puts the GUID of the transfer that an exchange carries (variable {@code guid}) into the logging MDC, key
 * {@code guid}, while each step of that exchange runs, and takes it out again after the step: every log line
 * written on a transfer's path, by a route's log step or by any library a step calls, carries its GUID. This
 * is what camel-mdc does for a header with {@code camel.mdc.customExchangeHeaders}; that module is not served here,
 * and the older {@code camel.main.use-mdc-logging} is deprecated and copies no header into the MDC.
 */
public class GuidMdcInterceptStrategy implements InterceptStrategy {

    public static final String KEY = "guid";

    @Override
    public Processor wrapProcessorInInterceptors(CamelContext context, NamedNode definition, Processor target,
            Processor nextTarget) {
        return new DelegateAsyncProcessor(AsyncProcessorConverterHelper.convert(target)) {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                // the variables' map itself: Exchange.getVariable parses the name for a repository prefix, on every step
                Object guid = exchange.hasVariables() ? exchange.getVariables().get(KEY) : null;
                if (!(guid instanceof String)) {
                    return processor.process(exchange, callback);
                }
                String outer = MDC.get(KEY);
                if (guid.equals(outer)) {
                    return processor.process(exchange, callback); // an enclosing step already set it
                }
                MDC.put(KEY, (String) guid);
                try {
                    return processor.process(exchange, callback);
                } finally {
                    if (outer == null) {
                        MDC.remove(KEY);
                    } else {
                        MDC.put(KEY, outer);
                    }
                }
            }
        };
    }
}
