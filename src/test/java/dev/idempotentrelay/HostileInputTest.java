package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.ConnectionGate;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Connections that stall, idle or crowd in, a core that answers garbage, and a stop in the middle of a call. */
class HostileInputTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final Resources running = new Resources();

    @Test
    void stalledAndIdleConnectionsAreClosedAfterTheIdleTimeoutAndHoldUpNobody() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url())
                .with("relay.channel.idle-timeout-ms", "2000").start());
        ConnectionGate gate = relay.relay().context().getRegistry().lookupByNameAndType("connectionGate", ConnectionGate.class);
        try (Channel stalled = Channel.open(relay.port); Channel idle = Channel.open(relay.port)) {
            byte[] request = transfer(newGuid());
            byte[] half = new byte[4 + 50];
            System.arraycopy("0112".getBytes(StandardCharsets.US_ASCII), 0, half, 0, 4);
            System.arraycopy(request, 0, half, 4, 50);
            stalled.writeRaw(half); // declares 112 bytes, sends 50, then nothing
            try (Channel bystander = Channel.open(relay.port)) {
                assertEquals("0000", Telegram.rspCode(bystander.send(transfer(newGuid()))));
                assertEquals(3, gate.openConnections(), "the bystander was answered while the stalled connection was open");
            }
            assertTrue(stalled.closedByRelay());
            assertTrue(idle.closedByRelay());
        }
        assertEquals(1, relay.ledger.count());
    }

    @Test
    void aConnectionWaitingForItsReplyIsNotIdle() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_200));
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url())
                .with("relay.channel.idle-timeout-ms", "300").start());
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid(), 5, "SLOW but answered"))));
        }
    }

    @Test
    void theConnectionCapClosesOneMoreAndAdmitsAgainOnceOneLeaves() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url())
                .with("relay.channel.max-connections", "3").start());
        ConnectionGate gate = relay.relay().context().getRegistry().lookupByNameAndType("connectionGate", ConnectionGate.class);
        List<Channel> admitted = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Channel channel = Channel.open(relay.port);
                admitted.add(channel);
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
            try (Channel oneMore = Channel.open(relay.port)) {
                assertTrue(oneMore.closedByRelay());
            }
            assertEquals(1, gate.refused());
            admitted.remove(0).close();
            Await.until("the relay saw the connection leave", Duration.ofSeconds(5), () -> gate.openConnections() == 2);
            try (Channel next = Channel.open(relay.port)) {
                assertEquals("0000", Telegram.rspCode(next.send(transfer(newGuid()))));
            }
        } finally {
            for (Channel channel : admitted) {
                channel.close();
            }
        }
    }

    @Test
    void aCoreAnsweringGarbageIsE500StoredDoneAndEveryChannelGetsItsReply() throws Exception {
        AtomicReference<Object[]> answer = new AtomicReference<>();
        HttpServer garbage = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        garbage.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                Object[] a = answer.get();
                byte[] body = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders((Integer) a[0], body.length == 0 ? -1 : body.length);
                if (body.length > 0) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                }
            }
        });
        garbage.start();
        running.keep(() -> garbage.stop(0));
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"),
                "http://127.0.0.1:" + garbage.getAddress().getPort()).start());

        Map<String, Object[]> answers = new LinkedHashMap<>();
        answers.put("not JSON", new Object[] {200, "<html>oops</html>"});
        answers.put("empty 200", new Object[] {200, ""});
        answers.put("missing fields", new Object[] {200, "{\"core_ref\":\"X1\"}"});
        answers.put("wrong types", new Object[] {200, "{\"core_ref\":7,\"balance_after\":\"lots\",\"processed_at\":2026}"});
        answers.put("negative balance", new Object[] {200, "{\"core_ref\":\"X1\",\"balance_after\":-5,\"processed_at\":\"20261130101010\"}"});
        answers.put("core_ref too long", new Object[] {200, "{\"core_ref\":\"X12345678901234567\",\"balance_after\":5,\"processed_at\":\"20261130101010\"}"});
        answers.put("422 without a code", new Object[] {422, "{\"message\":\"no\"}"});
        answers.put("422 with a foreign code", new Object[] {422, "{\"code\":\"X999\"}"});
        answers.put("redirect", new Object[] {302, ""});
        answers.put("503", new Object[] {503, "busy"});
        try (Channel channel = Channel.open(relay.port)) {
            for (Map.Entry<String, Object[]> a : answers.entrySet()) {
                answer.set(a.getValue());
                String guid = newGuid();
                byte[] reply = channel.send(transfer(guid));
                assertEquals("TR01R" + guid + "MOB1E500", text(reply), a.getKey());
                Map<String, Object> row = relay.ledger.row(guid);
                assertEquals("DONE", row.get("state"), a.getKey());
                assertEquals("E500", row.get("rsp_code"), a.getKey());
                assertArrayEquals(reply, (byte[]) row.get("response"), a.getKey());
            }
        }
    }

    @Test
    void aStopInTheMiddleOfACallFinishesRecordsAndAnswersItAndAdmitsNothingNew() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_500));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start();
        String guid = newGuid();
        CompletableFuture<byte[]> reply;
        try (Channel idle = Channel.open(relay.port); Channel busy = Channel.open(relay.port)) {
            busy.write(transfer(guid, 10_000, "SLOW lunch"));
            Await.until("the core received the POST", Duration.ofSeconds(10), () -> coreView.calls(guid) == 1);
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(relay::close);
            assertTrue(idle.closedByRelay(), "an idle connection is closed at once");
            try (Channel late = Channel.open(relay.port)) {
                assertTrue(late.closedByRelay(), "no new connection is admitted while draining");
            } catch (IOException refused) {
                // the listener may already be gone: refused is as good as closed
            }
            assertFalse(stopped.isDone());
            reply = CompletableFuture.completedFuture(dev.idempotentrelay.wire.Frames.read(busy.input()));
            stopped.get(20, TimeUnit.SECONDS);
        }
        assertEquals("0000", Telegram.rspCode(reply.get()));
        assertEquals("DONE", relay.ledger.row(guid).get("state"));
        assertEquals(0, relay.ledger.queryLong("SELECT COUNT(*) FROM tx WHERE state = 'SENT'"));
    }
}
