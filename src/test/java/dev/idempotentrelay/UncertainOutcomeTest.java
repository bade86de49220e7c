package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** In flight, timed out, not delivered, concurrent, restarted: the rows of SPEC section 3 that need time. */
class UncertainOutcomeTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final Resources running = new Resources();

    private static int attempts(Map<String, Object> row) {
        return ((Number) row.get("attempts")).intValue();
    }

    @Test
    void resendWhileSentIsE903AtOnceWithoutWaitingForTheFirstCall() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 3_000));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).readTimeoutMs(10_000).start());
        String guid = newGuid();
        byte[] request = transfer(guid, 10_000, "SLOW lunch");

        CompletableFuture<byte[]> first = CompletableFuture.supplyAsync(() -> {
            try (Channel channel = Channel.open(relay.port)) {
                return channel.send(request);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("the core received the first POST", Duration.ofSeconds(10), () -> coreView.calls(guid) == 1);

        byte[] resend;
        try (Channel channel = Channel.open(relay.port)) {
            resend = channel.send(request);
        }
        assertFalse(first.isDone(), "the resend was answered while the first call was still at the core");
        assertEquals("TR01R" + guid + "MOB1E903", text(resend));
        assertEquals("SENT", relay.ledger.row(guid).get("state"));

        byte[] firstReply = first.get(20, TimeUnit.SECONDS);
        assertEquals("0000", Telegram.rspCode(firstReply));
        assertEquals(1, coreView.calls(guid));
    }

    @Test
    void readTimeoutIsE901UnknownAndAResendAfterTheCoreFinishedIsStillE901() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_500));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).readTimeoutMs(300).start());
        String guid = newGuid();
        byte[] request = transfer(guid, 10_000, "SLOW lunch");

        byte[] reply;
        try (Channel channel = Channel.open(relay.port)) {
            reply = channel.send(request);
        }
        assertEquals("TR01R" + guid + "MOB1E901", text(reply));
        Map<String, Object> row = relay.ledger.row(guid);
        assertEquals("UNKNOWN", row.get("state"));
        assertEquals("E901", row.get("rsp_code"));

        Await.until("the core applied the slow transfer", Duration.ofSeconds(10), () -> coreView.inquiryStatus(guid) == 200);
        byte[] resend;
        try (Channel channel = Channel.open(relay.port)) {
            resend = channel.send(request);
        }
        assertEquals("TR01R" + guid + "MOB1E901", text(resend));
        assertEquals("UNKNOWN", relay.ledger.row(guid).get("state"));
        assertEquals(1, coreView.calls(guid));
        assertEquals(999_990_000L, core.balance(dev.idempotentrelay.support.Requests.FROM));
    }

    @Test
    void coreDownIsE902FailedAndEachResendReclaimsUntilTheCoreIsUp() throws Exception {
        int corePort = Ports.free();
        String coreUrl = "http://localhost:" + corePort;
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), coreUrl).start());
        String guid = newGuid();
        byte[] request = transfer(guid);

        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("TR01R" + guid + "MOB1E902", text(channel.send(request)));
            Map<String, Object> row = relay.ledger.row(guid);
            assertEquals("FAILED", row.get("state"));
            assertEquals("E902", row.get("rsp_code"));
            assertEquals(1, attempts(row));

            assertEquals("TR01R" + guid + "MOB1E902", text(channel.send(request)));
            assertEquals(2, attempts(relay.ledger.row(guid)));

            CoreSimulator core = running.keep(CoreSimulator.start(corePort, 1_000));
            byte[] reply = channel.send(request);
            assertEquals("0000", Telegram.rspCode(reply));
            row = relay.ledger.row(guid);
            assertEquals("DONE", row.get("state"));
            assertEquals(3, attempts(row));
            assertEquals(1, new CoreClient(core.url()).calls(guid));
            assertEquals(1, new CoreClient(core.url()).calls());
        }
    }

    @Test
    void coreThatWentDownAfterAKeptAliveCallIsE902NotE901() throws Exception {
        int corePort = Ports.free();
        CoreSimulator core = CoreSimulator.start(corePort, 1_000);
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start());
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            core.close(); // the pooled keep-alive connection to the core is now closed by the core
            String guid = newGuid();
            assertEquals("TR01R" + guid + "MOB1E902", text(channel.send(transfer(guid))));
            assertEquals("FAILED", relay.ledger.row(guid).get("state"));
        }
    }

    @Test
    void twentyFourChannelsSendingOneNewGuidAtOnceMakeExactlyOneCoreCall() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = running.keep(RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start());
        int channels = 24;
        for (int round = 0; round < 5; round++) {
            String guid = newGuid();
            byte[] request = transfer(guid);
            CyclicBarrier together = new CyclicBarrier(channels);
            ExecutorService pool = Executors.newFixedThreadPool(channels);
            List<Future<byte[]>> replies = new ArrayList<>();
            try {
                for (int i = 0; i < channels; i++) {
                    replies.add(pool.submit(() -> {
                        try (Channel channel = Channel.open(relay.port)) {
                            together.await(10, TimeUnit.SECONDS);
                            return channel.send(request);
                        }
                    }));
                }
                byte[] stored = null;
                List<byte[]> answers = new ArrayList<>();
                for (Future<byte[]> reply : replies) {
                    answers.add(reply.get(30, TimeUnit.SECONDS));
                }
                stored = (byte[]) relay.ledger.row(guid).get("response");
                assertEquals("DONE", relay.ledger.row(guid).get("state"));
                assertEquals(1, attempts(relay.ledger.row(guid)));
                int accepted = 0;
                for (byte[] answer : answers) {
                    String code = Telegram.rspCode(answer);
                    if (code.equals("0000")) {
                        assertArrayEquals(stored, answer);
                        accepted++;
                    } else {
                        assertEquals("TR01R" + guid + "MOB1E903", text(answer));
                    }
                }
                assertTrue(accepted >= 1, "the channel that won the claim got 0000");
                assertEquals(1, coreView.calls(guid), "round " + round);
            } finally {
                pool.shutdownNow();
            }
        }
        assertEquals(5, coreView.calls());
    }

    @Test
    void restartedRelayKeepsTheLedgerAndReplaysDoneByteForByte() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        Path db = dir.resolve("ledger.db");
        String guid = newGuid();
        String unknown = newGuid();
        byte[] first;
        try (RelayUnderTest relay = RelayUnderTest.on(db, core.url()).start();
                Channel channel = Channel.open(relay.port)) {
            first = channel.send(transfer(guid));
        }
        try (RelayUnderTest relay = RelayUnderTest.on(db, core.url()).start();
                Channel channel = Channel.open(relay.port)) {
            assertArrayEquals(first, channel.send(transfer(guid)));
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(unknown))));
        }
        assertEquals(1, coreView.calls(guid));
        assertEquals(2, coreView.calls());
    }
}
