package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two packaged relays on one PostgreSQL ledger, one killed with SIGKILL while it has calls at the core: the survivor's
 * timed resolve makes the dead relay's SENT rows UNKNOWN after sent-stale-after and settles them by inquiry, and every
 * GUID reaches the core exactly once (SPEC section 9).
 */
class RelayFailoverIT {

    @TempDir
    Path dir;

    @Test
    void theSurvivorSettlesTheKilledRelaysCallsByInquiryAndEveryGuidReachesTheCoreOnce() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            CoreClient coreView = new CoreClient(core.url());
            String ledger = Postgres.shared().newLedger();
            int victimPort = Ports.free();
            int survivorPort = Ports.free();
            try (JarProcess victim = JarProcess.start(dir, relayArgs(ledger, core.url(), victimPort));
                    JarProcess survivor = JarProcess.start(dir, relayArgs(ledger, core.url(), survivorPort))) {
                victim.awaitLine("listening on port " + victimPort, Duration.ofSeconds(60));
                survivor.awaitLine("listening on port " + survivorPort, Duration.ofSeconds(60));

                // load on both; on the victim, every fourth transfer is slow, so that calls are at the core when it dies
                Map<String, String> replies = new ConcurrentHashMap<>();
                AtomicBoolean stop = new AtomicBoolean();
                ExecutorService pool = Executors.newFixedThreadPool(9); // eight senders of load, one of the call at the core
                List<Future<?>> senders = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    boolean toVictim = i % 2 == 0;
                    int port = toVictim ? victimPort : survivorPort;
                    senders.add(pool.submit(() -> {
                        try (Channel channel = Channel.open(port)) {
                            for (int n = 0; !stop.get(); n++) {
                                String guid = newGuid();
                                byte[] request = toVictim && n % 4 == 3 ? transfer(guid, 10_000, "SLOW failover") : transfer(guid);
                                replies.put(guid, Telegram.rspCode(channel.send(request)));
                            }
                        } catch (IOException e) {
                            // the victim's connections end with it
                        }
                        return null;
                    }));
                }
                Await.until("both relays answered some", Duration.ofSeconds(30), () -> replies.size() >= 200);
                // one more slow transfer on a connection of its own: once the core holds it (it answers after 1 s,
                // the victim would give up after 1.5 s), the victim dies with that call at the core and its row SENT.
                // The slow calls of the load alone would not do: they run in step and can all end between a look
                // at the ledger and the kill.
                String atCore = newGuid();
                senders.add(pool.submit(() -> {
                    try (Channel channel = Channel.open(victimPort)) {
                        replies.put(atCore, Telegram.rspCode(channel.send(transfer(atCore, 10_000, "SLOW failover"))));
                    } catch (IOException e) {
                        // the victim dies before it answers: that is the point
                    }
                    return null;
                }));
                Await.until("the core holds the victim's slow call", Duration.ofSeconds(30), () -> coreView.calls(atCore) == 1);
                victim.kill();
                assertEquals("SENT", states(ledger).get(atCore), "the killed relay's call at the core");
                stop.set(true);
                for (Future<?> sender : senders) {
                    sender.get(30, TimeUnit.SECONDS);
                }
                pool.shutdownNow();

                // the survivor's resolve (every 1 s, sent-stale-after 2 s, min-age 2 s) settles what the victim left SENT
                // (a claim whose POST never left becomes FAILED by inquiry, then DONE by the survivor's reprocess)
                Await.until("every row settled DONE", Duration.ofSeconds(90), () -> LedgerFile.at(ledger).guids("state <> 'DONE'").isEmpty());
                // the run logs its summary once its last row is settled: wait for the line, not for the rows alone
                survivor.awaitLine("stale SENT made UNKNOWN", Duration.ofSeconds(30));

                // every GUID of the ledger reached the core once, DONE ones with the core's transfer
                Map<String, String> states = states(ledger);
                assertTrue(states.size() >= replies.size(), "rows " + states.size() + " for " + replies.size() + " replies");
                for (Map.Entry<String, String> row : states.entrySet()) {
                    assertEquals(1, coreView.calls(row.getKey()), row.getKey() + " " + row.getValue());
                    assertEquals("DONE", row.getValue(), row.getKey());
                }
                for (Map.Entry<String, String> reply : replies.entrySet()) {
                    assertTrue(coreView.calls(reply.getKey()) <= 1, reply.getKey());
                }
                assertEquals(states.size(), coreView.calls());
            }
        }
    }

    private static String[] relayArgs(String ledger, String core, int port) {
        return new String[] {"run", "--db", ledger, "--port", Integer.toString(port), "--core", core,
                "--admin-port", Integer.toString(Ports.free()), "--read-timeout-ms", "1500", "--every", "1",
                "--min-age", "2", "--sent-stale-after", "2"};
    }

    private static Map<String, String> states(String ledger) throws Exception {
        Map<String, String> states = new HashMap<>();
        try (Connection c = DriverManager.getConnection(ledger); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT guid, state FROM tx")) {
            while (rs.next()) {
                states.put(rs.getString(1), rs.getString(2));
            }
        }
        return states;
    }
}
