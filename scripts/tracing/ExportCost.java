/*
 * What the OTLP/HTTP exporter costs per span, outside the relay: a batch of 512 spans shaped as 64 transfers' (the root
 * with its four attributes, four route spans, two database spans, the POST), exported again and again to an OTLP sink
 * (the Python server of bench_setup in scripts/common.sh, on port 4399 here), each memory mode of the exporter in turn,
 * six rounds; prints the process's CPU per span of each. Throwaway-sized, kept for its figures in docs/performance.md:
 *   javac -cp target/idempotent-relay.jar -d /tmp/ec scripts/tracing/ExportCost.java
 *   java -Xms256m -Xmx256m -XX:+UseParallelGC -cp /tmp/ec:target/idempotent-relay.jar ExportCost http://127.0.0.1:4399/v1/traces 2000
 */
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.*;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.trace.*;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.lang.management.ManagementFactory;
import java.util.*;
import java.util.concurrent.TimeUnit;

public class ExportCost {
    public static void main(String[] a) throws Exception {
        String sink = a[0];
        List<SpanData> spans = new ArrayList<>();
        SpanProcessor keep = new SpanProcessor() {
            public void onStart(Context c, ReadWriteSpan s) {}
            public boolean isStartRequired() { return false; }
            public void onEnd(ReadableSpan s) { spans.add(s.toSpanData()); }
            public boolean isEndRequired() { return true; }
        };
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(keep).build();
        Tracer t = provider.get("idempotent-relay");
        for (int i = 0; i < 64; i++) { // 64 transfers of 8 spans: 512 spans, one batch
            Span root = t.spanBuilder("transfer").setSpanKind(SpanKind.SERVER).setNoParent().startSpan();
            Context rc = Context.root().with(root);
            for (String r : new String[] {"receive-telegram", "claim-guid", "call-core", "record-result"}) {
                Span route = t.spanBuilder(r).setParent(rc).startSpan();
                if (r.equals("claim-guid") || r.equals("record-result")) {
                    t.spanBuilder(r.equals("claim-guid") ? "claim-new-guid" : "record-done").setSpanKind(SpanKind.CLIENT)
                        .setParent(Context.root().with(route)).setAttribute("db.system", "sqlite")
                        .setAttribute("db.operation.name", "claim-new-guid").startSpan().end();
                }
                if (r.equals("call-core")) {
                    t.spanBuilder("POST").setSpanKind(SpanKind.CLIENT).setParent(Context.root().with(route))
                        .setAttribute("http.request.method", "POST").setAttribute("url.full", "http://localhost:9201/v1/transfers")
                        .setAttribute("server.address", "localhost").setAttribute(AttributeKey.longKey("server.port"), 9201L)
                        .setAttribute(AttributeKey.longKey("http.response.status_code"), 200L).startSpan().end();
                }
                route.end();
            }
            root.setAttribute("relay.guid", UUID.randomUUID().toString().replace("-", "").toUpperCase())
                .setAttribute("relay.channel", "0001").setAttribute("relay.state_change", "none -> SENT -> DONE")
                .setAttribute("relay.reply_code", "0000");
            root.end();
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, List<Double>> results = new TreeMap<>();
        int batches = Integer.parseInt(a[1]);
        for (int round = 0; round < 6; round++) {
            for (MemoryMode mode : round % 2 == 0 ? new MemoryMode[] {MemoryMode.REUSABLE_DATA, MemoryMode.IMMUTABLE_DATA}
                    : new MemoryMode[] {MemoryMode.IMMUTABLE_DATA, MemoryMode.REUSABLE_DATA}) {
                OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(sink).setMemoryMode(mode).build();
                for (int i = 0; i < batches / 4; i++) exporter.export(spans).join(10, TimeUnit.SECONDS);
                long c0 = os.getProcessCpuTime(); long w0 = System.nanoTime();
                for (int i = 0; i < batches; i++) exporter.export(spans).join(10, TimeUnit.SECONDS);
                long cpu = os.getProcessCpuTime() - c0;
                double perSpan = cpu / 1000.0 / (batches * (double) spans.size());
                results.computeIfAbsent(mode.name(), k -> new ArrayList<>()).add(perSpan);
                System.out.printf("round %d %s: %.2f us of CPU a span (%.1f us a transfer of 8), %.1f s%n", round, mode, perSpan, perSpan * 8,
                        (System.nanoTime() - w0) / 1e9);
                exporter.shutdown().join(10, TimeUnit.SECONDS);
            }
        }
        results.forEach((m, l) -> { Collections.sort(l); System.out.printf("%s median %.2f us a span%n", m, l.get(l.size() / 2)); });
        System.out.println(spans.size() + " spans a batch");
    }
}
