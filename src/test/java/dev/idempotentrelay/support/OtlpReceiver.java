package dev.idempotentrelay.support;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * An OpenTelemetry collector as the relay meets it: OTLP over HTTP on {@code /v1/traces}, each request an
 * ExportTraceServiceRequest in protobuf, decoded with opentelemetry-proto; it keeps every span with its service's name.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One span as received, its ids in hex as in a traceparent, its attributes as strings. */
    public record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name, Span.SpanKind kind,
            Map<String, String> attributes, io.opentelemetry.proto.trace.v1.Status status) {

        public boolean isRoot() {
            return parentSpanId.isEmpty();
        }

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/v1/traces", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
                for (ResourceSpans resource : request.getResourceSpansList()) {
                    String service = attributes(resource.getResource()).get("service.name");
                    for (ScopeSpans scope : resource.getScopeSpansList()) {
                        for (Span span : scope.getSpansList()) {
                            spans.add(new ReceivedSpan(service, hex(span.getTraceId().toByteArray()), hex(span.getSpanId().toByteArray()),
                                    hex(span.getParentSpanId().toByteArray()), span.getName(), span.getKind(),
                                    span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, OtlpReceiver::text)),
                                    span.getStatus()));
                        }
                    }
                }
                byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        server.start();
    }

    public static OtlpReceiver start() throws IOException {
        return new OtlpReceiver();
    }

    /** The address to give the relay as relay.tracing.endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** Waits for a span that matches, and returns it. */
    public ReceivedSpan await(String what, Duration limit, Predicate<ReceivedSpan> match) throws Exception {
        Await.until(what + "; spans so far: " + spans.stream().map(ReceivedSpan::name).toList(), limit,
                () -> spans.stream().anyMatch(match));
        return spans.stream().filter(match).findFirst().orElseThrow();
    }

    /** The spans of one trace. */
    public List<ReceivedSpan> trace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static Map<String, String> attributes(Resource resource) {
        return resource.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, OtlpReceiver::text));
    }

    private static String text(KeyValue attribute) {
        var value = attribute.getValue();
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString();
        };
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
