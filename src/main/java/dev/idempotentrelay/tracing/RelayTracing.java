package dev.idempotentrelay.tracing;

import dev.idempotentrelay.ops.RelayMetrics;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.support.LifecycleStrategySupport;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Traces of transfers (relay.tracing.enabled), set up in one place: OpenTelemetry's SDK, configured as its users
 * expect by the standard OTEL_* variables (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_*), the relay.tracing.* properties standing where a variable is not set; OTLP over
 * HTTP (protobuf) sent by the JDK's HttpClient, a batch span processor with a bounded queue, a parent-based ratio
 * sampler. Then: a span per route ({@link RouteSpans}), per ledger statement and core call ({@link EndpointSpans},
 * {@link CoreCallTraceContext}), trace ids in the log lines ({@link TraceMdcInterceptStrategy}), and the spans exported
 * and dropped in /metrics. Off, none of it exists: no SDK, no exporter thread, no interceptor.
 */
public final class RelayTracing {

    /**
     * The SDK's own logger (java.util.logging, which prints to stderr): its lines, such as a failed export while the
     * collector is down, go to the relay's log on stdout instead, where stderr carries only a command's error line.
     * Held here: java.util.logging keeps its loggers, and so their handlers, only while someone does.
     */
    private static final java.util.logging.Logger SDK_LOG = java.util.logging.Logger.getLogger("io.opentelemetry");

    /** Spans in one export request at most, where OTEL_BSP_MAX_EXPORT_BATCH_SIZE is not set (the SDK's own is 512). */
    static final int EXPORT_BATCH = 2048;

    private RelayTracing() {
    }

    /**
     * The relay.tracing.* properties (service-name, endpoint, sampler-ratio, queue-size) are the defaults of the OTEL_*
     * variables; the ledger's database ({@code relay.ledger.dialect}, sqlite or postgresql) is its spans' db.system.
     */
    public static void install(CamelContext context, RelayMetrics metrics) {
        String dbSystem = context.resolvePropertyPlaceholders("{{relay.ledger.dialect}}");
        Map<String, String> settings = new LinkedHashMap<>();
        for (String key : new String[] {"service-name", "endpoint", "sampler-ratio", "queue-size"}) {
            settings.put(key, context.resolvePropertyPlaceholders("{{relay.tracing." + key + "}}"));
        }
        if (SDK_LOG.getUseParentHandlers()) {
            SDK_LOG.setUseParentHandlers(false);
            SDK_LOG.addHandler(new SLF4JBridgeHandler());
        }
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("otel.service.name", settings.get("service-name"));
        defaults.put("otel.exporter.otlp.endpoint", settings.get("endpoint"));
        defaults.put("otel.exporter.otlp.protocol", "http/protobuf");
        defaults.put("otel.traces.exporter", "otlp");
        defaults.put("otel.traces.sampler", "parentbased_traceidratio");
        defaults.put("otel.traces.sampler.arg", settings.get("sampler-ratio"));
        defaults.put("otel.bsp.max.queue.size", settings.get("queue-size"));
        // larger export requests than the SDK's 512 spans: fewer requests cost the JDK HTTP client less CPU per span
        // (docs/performance.md#traces); never more than the queue holds (the SDK would cut it so with a warning)
        defaults.put("otel.bsp.max.export.batch.size", Integer.toString(EXPORT_BATCH));
        // the SDK's own metrics stay inside (the dropped spans are read from them); the relay's logs stay Logback's
        defaults.put("otel.metrics.exporter", "none");
        defaults.put("otel.logs.exporter", "none");
        SpanExportCounts counts = new SpanExportCounts();
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> defaults)
                .addPropertiesCustomizer(config -> config.getInt("otel.bsp.max.export.batch.size", EXPORT_BATCH)
                        > config.getInt("otel.bsp.max.queue.size", EXPORT_BATCH)
                                ? Map.of("otel.bsp.max.export.batch.size", config.getString("otel.bsp.max.queue.size")) : Map.of())
                .addSpanExporterCustomizer((exporter, config) -> counts.counting(exporter))
                .addMeterProviderCustomizer((meters, config) -> meters.registerMetricReader(counts))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        Tracer tracer = sdk.getTracer("idempotent-relay");

        context.addRoutePolicyFactory(new RouteSpans(tracer));
        context.getCamelContextExtension().addInterceptStrategy(new EndpointSpans(tracer, dbSystem));
        context.getComponent("http", HttpComponent.class).setHttpClientConfigurer(new CoreCallTraceContext());
        context.getCamelContextExtension().addInterceptStrategy(new TraceMdcInterceptStrategy());
        metrics.counter("relay.tracing.spans.exported", "Spans of traces the collector took", counts, SpanExportCounts::exported);
        metrics.counter("relay.tracing.spans.dropped", "Spans of traces dropped: the export queue was full (reason queue_full), "
                + "or their export failed, the collector down or too slow (reason export_failed)", counts, SpanExportCounts::droppedQueueFull,
                "reason", "queue_full");
        metrics.counter("relay.tracing.spans.dropped", "Spans of traces dropped: the export queue was full (reason queue_full), "
                + "or their export failed, the collector down or too slow (reason export_failed)", counts, SpanExportCounts::failedExports,
                "reason", "export_failed");
        // the spans still queued go out when the relay stops, after its routes
        context.addLifecycleStrategy(new LifecycleStrategySupport() {
            @Override
            public void onContextStopped(CamelContext stopped) {
                sdk.close();
            }
        });
    }
}
