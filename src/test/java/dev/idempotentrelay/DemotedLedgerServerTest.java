package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay on a multi-host URL whose server is demoted (made read-only: every write SQLSTATE 25006) while another
 * host becomes the one that takes writes: the pool drops its connections to the read-only server and serves from the
 * other, without a restart (SPEC section 9). HikariCP alone keeps a connection whose statement failed with 25006,
 * and the relay answered E902 for ever.
 */
class DemotedLedgerServerTest {

    @RegisterExtension
    final Resources running = new Resources();

    private static String ledgerOn(Postgres server) {
        return "jdbc:postgresql://127.0.0.1:" + server.port + "/ledger?user=postgres";
    }

    @Test
    void connectionsToAServerMadeReadOnlyAreDroppedAndTheRelayServesFromTheNewPrimary() throws Exception {
        Postgres a = running.keep(Postgres.start());
        Postgres b = running.keep(Postgres.start());
        for (Postgres server : new Postgres[] {a, b}) {
            server.execute("CREATE DATABASE ledger");
            LedgerFile.migrated(ledgerOn(server));
        }
        // b takes no writes: to pgjdbc's targetServerType=primary it is not a primary
        b.set("default_transaction_read_only", "on");
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        String url = "jdbc:postgresql://127.0.0.1:" + a.port + ",127.0.0.1:" + b.port + "/ledger?targetServerType=primary&user=postgres";
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(url, core.url()).start());
        String before = newGuid();
        assertEquals("0000", Telegram.rspCode(send(relay, before)));
        assertEquals("DONE", LedgerFile.at(ledgerOn(a)).row(before).get("state"));

        // the failover: a demoted (read-only), b the primary. pg_reload_conf() only signals the servers: a backend of
        // the relay that has not read the file again yet still writes on a, which was then still the primary; so
        // the wait is for a transfer that is 0000 from b, and each 0000 before it is on one server only
        b.set("default_transaction_read_only", null);
        a.set("default_transaction_read_only", "on");
        Map<String, String> replies = new HashMap<>();
        Await.until("a transfer is 0000 from the new primary", Duration.ofSeconds(30), () -> {
            String guid = newGuid();
            String code = Telegram.rspCode(send(relay, guid));
            replies.put(guid, code);
            return code.equals("0000") && LedgerFile.at(ledgerOn(b)).row(guid) != null;
        });
        for (Map.Entry<String, String> reply : replies.entrySet()) {
            String guid = reply.getKey();
            Map<String, Object> onA = LedgerFile.at(ledgerOn(a)).row(guid);
            Map<String, Object> onB = LedgerFile.at(ledgerOn(b)).row(guid);
            if (reply.getValue().equals("0000")) {
                assertTrue(onA == null ^ onB == null, guid + " is on one server only: " + onA + " " + onB);
                // DONE, or SENT while the servers swapped: the claims and the records are committed on connections of
                // their own (group commit), so a claim can land on one server and its record reach the other, which has
                // no such row (or is read-only); the core's 0000 is the answer all the same, and the SENT row is settled
                // later by inquiry (stale SENT, then UNKNOWN), never sent again
                assertTrue(Set.of("DONE", "SENT").contains((onB != null ? onB : onA).get("state")), guid + ": " + onA + " " + onB);
                assertEquals(1, coreView.calls(guid));
            } else {
                assertEquals("E902", reply.getValue(), guid);
                assertNull(onB, guid + " was E902 but is on the new primary");
                assertEquals(0, coreView.calls(guid), guid + " was E902 but reached the core");
            }
        }
        assertTrue(replies.size() < 30, "E902 for " + replies.size() + " transfers before the relay moved");
        assertEquals("UP", relay.admin().json("/health", 200).get("ledger").asText());
    }

    private static byte[] send(RelayUnderTest relay, String guid) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return channel.send(transfer(guid));
        }
    }
}
