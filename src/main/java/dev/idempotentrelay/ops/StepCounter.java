package dev.idempotentrelay.ops;

import dev.idempotentrelay.diagram.StepCount;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.spi.InterceptStrategy;
import org.apache.camel.spi.WrapAwareProcessor;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.processor.DelegateAsyncProcessor;

/**
 * Counts, for each step of every route, the exchanges that reached it and those that failed there (an exception on
 * the exchange when the step is done, caught later or not): the live counts of the route pictures. Two adders per
 * step, kept by the step's node of the route model; nothing else on the path of an exchange. Camel's own
 * per-processor statistics (camel.main.jmx-management-statistics-level=Default, which the route-structure console
 * reads) keep a managed bean and timings per step; the relay keeps them per route only (application.properties).
 */
public class StepCounter implements InterceptStrategy {

    private final Map<NamedNode, Counter> counters = Collections.synchronizedMap(new IdentityHashMap<>());

    @Override
    public Processor wrapProcessorInInterceptors(CamelContext context, NamedNode definition, Processor target,
            Processor nextTarget) {
        return new Counting(target, counters.computeIfAbsent(definition, d -> new Counter()));
    }

    /** The counts of one step of the model, or null for a node that no route ran through this strategy. */
    public StepCount of(NamedNode node) {
        Counter counter = counters.get(node);
        return counter == null ? null : new StepCount(counter.exchanges.sum(), counter.failures.sum());
    }

    private static final class Counter {
        final LongAdder exchanges = new LongAdder();
        final LongAdder failures = new LongAdder();
    }

    /** The step, counted. Aware that it wraps it, so that Camel puts no wrapper of its own around it. */
    private static final class Counting extends DelegateAsyncProcessor implements WrapAwareProcessor {
        private final Processor target;
        private final Counter counter;

        Counting(Processor target, Counter counter) {
            super(AsyncProcessorConverterHelper.convert(target));
            this.target = target;
            this.counter = counter;
        }

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            counter.exchanges.increment();
            return processor.process(exchange, doneSync -> {
                if (exchange.getException() != null) {
                    counter.failures.increment();
                }
                callback.done(doneSync);
            });
        }

        @Override
        public Processor getWrapped() {
            return target;
        }
    }
}
