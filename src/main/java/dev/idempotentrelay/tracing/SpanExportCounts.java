package dev.idempotentrelay.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What became of the spans, for /metrics: exported (the collector took them), dropped because the export queue was
 * full (the batch span processor's own count, read from the SDK's metrics at each scrape), and dropped because their
 * export failed (a collector down or too slow). The SDK's exporter and processor stay as they are; this wraps the
 * exporter and reads the processor's {@code processedSpans} count.
 */
final class SpanExportCounts implements MetricReader {

    private static final AttributeKey<Boolean> DROPPED = AttributeKey.booleanKey("dropped");

    private final AtomicLong exported = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile CollectionRegistration registration = CollectionRegistration.noop();

    long exported() {
        return exported.get();
    }

    long failedExports() {
        return failed.get();
    }

    /** The spans the batch span processor dropped because its queue was full. */
    long droppedQueueFull() {
        long dropped = 0;
        for (MetricData metric : registration.collectAllMetrics()) {
            if (metric.getName().equals("processedSpans")) {
                for (LongPointData point : metric.getLongSumData().getPoints()) {
                    if (Boolean.TRUE.equals(point.getAttributes().get(DROPPED))) {
                        dropped += point.getValue();
                    }
                }
            }
        }
        return dropped;
    }

    SpanExporter counting(SpanExporter exporter) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                int count = spans.size();
                CompletableResultCode result = exporter.export(spans);
                result.whenComplete(() -> (result.isSuccess() ? exported : failed).addAndGet(count));
                return result;
            }

            @Override
            public CompletableResultCode flush() {
                return exporter.flush();
            }

            @Override
            public CompletableResultCode shutdown() {
                return exporter.shutdown();
            }
        };
    }

    @Override
    public void register(CollectionRegistration registration) {
        this.registration = registration;
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return AggregationTemporality.CUMULATIVE;
    }

    @Override
    public MemoryMode getMemoryMode() {
        return MemoryMode.IMMUTABLE_DATA;
    }
}
