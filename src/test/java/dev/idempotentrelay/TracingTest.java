package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.OtlpReceiver;
import dev.idempotentrelay.support.OtlpReceiver.ReceivedSpan;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LogLines;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.proto.trace.v1.Status.StatusCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Traces of transfers (relay.tracing.enabled) as an OpenTelemetry user meets them: a real OTLP/HTTP receiver gets, for
 * one transfer sent on a real socket, its root span and a child span per route, the ledger's statements and the core
 * call as client spans, and the real core simulator gets the traceparent of that call; a timed route's run is a trace
 * of its own; a collector that is down costs no transfer and counts as dropped; the transfer's log line carries its
 * trace id; and off, the relay has no exporter thread and no tracing metrics.
 */
class TracingTest {

    private static final Duration EXPORTED = Duration.ofSeconds(30);

    @RegisterExtension
    final Resources running = new Resources();

    @TempDir
    Path dir;

    @BeforeAll
    static void exportOften() {
        // the batch span processor exports every 5 s by default; the standard setting, read by the SDK's autoconfigure
        System.setProperty("otel.bsp.schedule.delay", "100");
    }

    @AfterAll
    static void exportAsByDefault() {
        System.clearProperty("otel.bsp.schedule.delay");
    }

    /** A relay with traces on, sent to {@code endpoint}; what a test adds goes on the builder. */
    private RelayUnderTest.Builder traced(CoreSimulator core, String endpoint) {
        return RelayUnderTest.on(dir.resolve("relay.db"), core.url())
                .with("relay.tracing.enabled", "true").with("relay.tracing.endpoint", endpoint)
                .with("relay.tracing.service-name", "relay-under-test");
    }

    private RelayUnderTest tracedRelay(CoreSimulator core, String endpoint) throws Exception {
        return running.keep(traced(core, endpoint).start());
    }

    @Test
    void aTransferIsOneTraceThatReadsLikeTheRouteChainAndTheCoreJoinsIt() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = tracedRelay(core, collector.endpoint());
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
        }

        ReceivedSpan root = collector.await("the transfer's root span", EXPORTED,
                s -> s.name().equals("transfer") && guid.equals(s.attribute("relay.guid")));
        assertTrue(root.isRoot(), "a trace of its own");
        assertEquals(SpanKind.SPAN_KIND_SERVER, root.kind());
        assertEquals("relay-under-test", root.service());
        assertEquals("0000", root.attribute("relay.reply_code"));
        assertEquals("none -> SENT -> DONE", root.attribute("relay.state_change"));
        assertNotNull(root.attribute("relay.channel"));
        assertTrue(root.status().getCode() != StatusCode.STATUS_CODE_ERROR);

        // its spans, found by name once all are in: the routes it passed, the ledger's statements, the core's POST
        Await.until("the spans of the transfer's routes, statements and core call", EXPORTED, () -> names(collector.trace(root.traceId()))
                .containsAll(Set.of("receive-telegram", "claim-guid", "call-core", "claim-new-guid", "POST")));
        List<ReceivedSpan> trace = collector.trace(root.traceId());
        Map<String, ReceivedSpan> byId = trace.stream().collect(Collectors.toMap(ReceivedSpan::spanId, Function.identity()));
        for (ReceivedSpan span : trace) {
            assertTrue(span == root || byId.containsKey(span.parentSpanId()), span.name() + "'s parent is in the trace");
        }
        ReceivedSpan receive = only(trace, "receive-telegram");
        assertEquals(root.spanId(), receive.parentSpanId(), "the channel's route is the root's child");
        ReceivedSpan claim = only(trace, "claim-guid");
        assertEquals(receive.spanId(), claim.parentSpanId(), "claim-guid is called by receive-telegram");
        ReceivedSpan callCore = only(trace, "call-core");
        assertEquals("claim-guid", byId.get(callCore.parentSpanId()).name(), "call-core is called by claim-guid");

        ReceivedSpan claimStatement = only(trace, "claim-new-guid");
        assertEquals(SpanKind.SPAN_KIND_CLIENT, claimStatement.kind());
        assertEquals("sqlite", claimStatement.attribute("db.system"));
        assertEquals("claim-new-guid", claimStatement.attribute("db.operation.name"));
        assertEquals(claim.spanId(), claimStatement.parentSpanId(), "the claim is a step of claim-guid");

        ReceivedSpan post = only(trace, "POST");
        assertEquals(SpanKind.SPAN_KIND_CLIENT, post.kind());
        assertEquals(callCore.spanId(), post.parentSpanId());
        assertEquals("200", post.attribute("http.response.status_code"));
        assertEquals(core.url().replace("localhost", post.attribute("server.address")) + "/v1/transfers", post.attribute("url.full"));
        // the core got the POST's traceparent: its trace joins the relay's
        String traceparent = core.traceparent(guid);
        assertTrue(traceparent.startsWith("00-" + root.traceId() + "-" + post.spanId() + "-"), traceparent);
        assertEquals(1, Integer.parseInt(traceparent.substring(53), 16) & 1, "sampled: " + traceparent);
        Await.until("the spans counted as exported", EXPORTED, () -> relay.admin().metric("relay_tracing_spans_exported_total") >= trace.size());
    }

    @Test
    void anECodeMarksTheTransfersSpanAsAnError() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = tracedRelay(core, collector.endpoint());
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid, 100, "first"))));
            // the same GUID with another request
            assertEquals("E904", Telegram.rspCode(channel.send(transfer(guid, 200, "other"))));
        }
        ReceivedSpan refused = collector.await("the E904's root span", EXPORTED,
                s -> s.name().equals("transfer") && "E904".equals(s.attribute("relay.reply_code")));
        assertEquals(guid, refused.attribute("relay.guid"));
        assertEquals(StatusCode.STATUS_CODE_ERROR, refused.status().getCode());
        assertEquals("E904", refused.status().getMessage());
        assertEquals(1, new CoreClient(core.url()).calls(guid), "one POST");
    }

    @Test
    void eachRunOfATimedRouteIsATraceOfItsOwn() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        running.keep(traced(core, collector.endpoint())
                .with("relay.jobs.enabled", "true").with("relay.jobs.every", "1").start());
        ReceivedSpan run = collector.await("a run of resolve", EXPORTED, s -> s.name().equals("resolve-unknown"));
        assertTrue(run.isRoot(), "a trace of its own, not a child of a transfer's");
        Await.until("its batch's statement and its run's route", EXPORTED,
                () -> names(collector.trace(run.traceId())).containsAll(Set.of("run-resolve", "find-unknown-due")));
        ReceivedSpan runResolve = only(collector.trace(run.traceId()), "run-resolve");
        assertEquals(run.spanId(), runResolve.parentSpanId());
        // the ledger watch's probes (a timer route every few seconds) are not traced
        assertTrue(collector.spans().stream().noneMatch(s -> s.name().startsWith("watch-ledger") || s.name().startsWith("probe-ledger")),
                names(collector.spans()).toString());
    }

    @Test
    void resolvesInquiryIsAnHttpSpanOfItsRunAndTheCoreJoinsItsTrace() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_500));
        RelayUnderTest relay = running.keep(traced(core, collector.endpoint()).readTimeoutMs(300)
                .with("relay.jobs.enabled", "true").with("relay.jobs.every", "1")
                .with("relay.resolve.min-age", "3").start());
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            // the core answers after the relay stopped waiting: UNKNOWN, for resolve to ask about
            assertEquals("E901", Telegram.rspCode(channel.send(transfer(guid, 10_000, "SLOW lunch"))));
        }
        ReceivedSpan get = collector.await("resolve's inquiry", EXPORTED,
                s -> s.name().equals("GET") && String.valueOf(s.attribute("url.full")).endsWith("/v1/transfers/" + guid));
        assertEquals(SpanKind.SPAN_KIND_CLIENT, get.kind());
        assertEquals("GET", get.attribute("http.request.method"));
        assertEquals("200", get.attribute("http.response.status_code"));
        Await.until("the inquiry's route", EXPORTED, () -> collector.trace(get.traceId()).stream()
                .anyMatch(s -> s.spanId().equals(get.parentSpanId()) && s.name().equals("inquire-core")));
        assertTrue(names(collector.trace(get.traceId())).contains("resolve-unknown"), "a step of a resolve run's trace");
        // the core got the inquiry's traceparent
        assertTrue(core.traceparent(guid).startsWith("00-" + get.traceId() + "-" + get.spanId() + "-"), core.traceparent(guid));
        Await.until("the row resolved", EXPORTED, () -> "DONE".equals(relay.ledger.row(guid).get("state")));
    }

    @Test
    void atARatioOfATenthAboutOneTransferInTenIsTraced() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = running.keep(traced(core, collector.endpoint()).with("relay.tracing.sampler-ratio", "0.1").start());
        List<String> guids = new java.util.ArrayList<>();
        try (Channel channel = Channel.open(relay.port)) {
            for (int i = 0; i < 200; i++) {
                String guid = newGuid();
                guids.add(guid);
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
            }
        }
        // the core got a traceparent for every transfer, sampled or not (flag 00): its own sampler can follow the relay's
        assertTrue(guids.stream().allMatch(g -> core.traceparent(g) != null));
        long sampled = guids.stream().filter(g -> (Integer.parseInt(core.traceparent(g).substring(53), 16) & 1) == 1).count();
        // at a ratio of 0.1, 200 transfers give 20 on average; under 5 or over 50 is a chance below one in 10^4
        assertTrue(sampled >= 5 && sampled <= 50, sampled + " of 200 sampled");
        // and exactly those are exported, each a whole trace
        Await.until("a root span for each sampled transfer", EXPORTED,
                () -> collector.spans().stream().filter(s -> s.name().equals("transfer")).count() == sampled);
        for (ReceivedSpan root : collector.spans().stream().filter(s -> s.name().equals("transfer")).toList()) {
            String guid = root.attribute("relay.guid");
            assertTrue(core.traceparent(guid).startsWith("00-" + root.traceId() + "-"), guid);
        }
    }

    @Test
    void aOneShotCommandIsATraceRootedAtItsRoute() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        Path db = dir.resolve("relay.db");
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        // a ledger the purge may run on: a relay made it, and is stopped
        try (RelayUnderTest relay = RelayUnderTest.on(db, core.url()).start()) {
            try (Channel channel = Channel.open(relay.port)) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
        }
        OneShot purge = OneShot.withEnvironment(Map.of("RELAY_TRACING_ENABLED", "true", "RELAY_TRACING_ENDPOINT", collector.endpoint()),
                "purge", "--db", db.toString(), "--days", "7");
        assertEquals(0, purge.exitCode, purge.toString());
        // its spans were sent before the command returned
        ReceivedSpan run = collector.spans().stream().filter(s -> s.name().equals("run-purge")).findFirst().orElseThrow(
                () -> new AssertionError("no run-purge span in " + names(collector.spans())));
        assertTrue(run.isRoot());
        assertTrue(names(collector.trace(run.traceId())).contains("purge-done"), names(collector.trace(run.traceId())).toString());
    }

    @Test
    void aCollectorThatIsDownCostsNoTransferAndItsSpansCountAsDropped() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        LogLines log = running.keep(LogLines.capture());
        // nothing listens there; the export queue holds 8 spans, fewer than one transfer's
        RelayUnderTest relay = running.keep(traced(core, "http://127.0.0.1:" + Ports.free()).with("relay.tracing.queue-size", "8").start());
        try (Channel channel = Channel.open(relay.port)) {
            for (int i = 0; i < 50; i++) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
        }
        Await.until("spans counted as dropped", EXPORTED,
                () -> relay.admin().metric("relay_tracing_spans_dropped_total{reason=\"export_failed\"}") > 0);
        assertTrue(relay.admin().metric("relay_tracing_spans_dropped_total{reason=\"queue_full\"}") > 0, "the queue was full");
        // the SDK's complaint is a line of the relay's log (stdout), not java.util.logging's on stderr
        log.await(EXPORTED, "io.opentelemetry", "Failed to export");
        assertEquals(0.0, relay.admin().metric("relay_tracing_spans_exported_total"));
    }

    @Test
    void theLogLineOfATransferCarriesItsTraceId() throws Exception {
        OtlpReceiver collector = running.keep(OtlpReceiver.start());
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        Logger transfers = (Logger) LoggerFactory.getLogger("receive-telegram");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        transfers.addAppender(lines);
        Level before = transfers.getLevel();
        transfers.setLevel(Level.INFO);
        try {
            RelayUnderTest relay = tracedRelay(core, collector.endpoint());
            String guid = newGuid();
            try (Channel channel = Channel.open(relay.port)) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
            }
            ReceivedSpan root = collector.await("the transfer's root span", EXPORTED,
                    s -> s.name().equals("transfer") && guid.equals(s.attribute("relay.guid")));
            ILoggingEvent line = lines.list.stream().filter(e -> e.getFormattedMessage().startsWith("guid " + guid)).findFirst().orElseThrow();
            assertEquals(root.traceId(), line.getMDCPropertyMap().get("trace_id"), line.getFormattedMessage());
            Await.until("the span of its line", EXPORTED,
                    () -> collector.trace(root.traceId()).stream().anyMatch(s -> s.spanId().equals(line.getMDCPropertyMap().get("span_id"))));
        } finally {
            transfers.setLevel(before);
            transfers.detachAppender(lines);
        }
    }

    @Test
    void offTheRelayHasNoExporterThreadAndNoTracingMetrics() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("relay.db"), core.url()).start());
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
        }
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().contains("BatchSpanProcessor")),
                "no exporter thread");
        assertTrue(relay.admin().metrics().keySet().stream().noneMatch(k -> k.startsWith("relay_tracing")));
        assertEquals(1, new CoreClient(core.url()).calls(guid));
        assertEquals(null, core.traceparent(guid), "no traceparent sent to the core");
    }

    private static ReceivedSpan only(List<ReceivedSpan> trace, String name) {
        List<ReceivedSpan> named = trace.stream().filter(s -> s.name().equals(name)).toList();
        assertEquals(1, named.size(), name + " in " + names(trace));
        return named.get(0);
    }

    private static Set<String> names(List<ReceivedSpan> spans) {
        return spans.stream().map(ReceivedSpan::name).collect(Collectors.toSet());
    }
}
