package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.ledger.ReplicationCheck.UnsafeReplicationException;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.LogLines;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.time.Duration;
import org.apache.camel.util.ObjectHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay on a PostgreSQL primary with a streaming standby (SPEC section 9): it does not start while a commit
 * returns before the standby has it (PostgreSQL's default), it starts once the standby is synchronous and says so in
 * /health, and a running relay whose ledger loses its synchronous standby setting says so (an ERROR line, /health,
 * relay_ledger_unsafe_replication) until it is back. The packaged jar's refusal and its --allow-async-replication are
 * in LedgerFailoverIT.
 */
class ReplicatedLedgerStartTest {

    @RegisterExtension
    final Resources running = new Resources();

    private static UnsafeReplicationException refusal(RelayUnderTest.Builder relay) {
        Exception failed = assertThrows(Exception.class, () -> relay.start().close());
        UnsafeReplicationException unsafe = ObjectHelper.getException(UnsafeReplicationException.class, failed);
        assertNotNull(unsafe, failed.toString());
        return unsafe;
    }

    @Test
    void aRelayStartsOnlyWhenItsCommitsWaitForASynchronousStandbyAndSaysWhenThatChanges() throws Exception {
        Postgres primary = running.keep(Postgres.start());
        running.keep(primary.standby("standby"));
        String ledger = primary.newLedger();
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));

        // asynchronous, PostgreSQL's default: one line naming the risk and the setting
        String line = refusal(RelayUnderTest.onLedger(ledger, core.url())).getMessage();
        assertTrue(line.contains("has asynchronous standbys and no synchronous one"), line);
        assertTrue(line.contains("standby (async, streaming)"), line);
        assertTrue(line.contains("a claim it acknowledges can be lost at a failover, and its transfer sent to the core a second time"), line);
        assertTrue(line.contains("relay.db.allow-async-replication=true"), line);
        assertFalse(line.contains("\n"), line);

        // a synchronous standby: it starts and says so
        primary.set("synchronous_standby_names", "standby");
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(ledger, core.url()).with("relay.db.check-every", "1").start());
        JsonNode replication = relay.admin().json("/health", 200).get("replication");
        assertEquals("SYNCHRONOUS", replication.get("status").asText(), replication.toString());
        assertTrue(replication.get("detail").asText().contains("standby (sync, streaming)"), replication.toString());
        assertEquals(0.0, relay.admin().metric("relay_ledger_unsafe_replication"));
        assertEquals("0000", Telegram.rspCode(send(relay)));

        // the setting lost while it runs: it goes on serving, and says so until the standby is synchronous again
        try (LogLines log = LogLines.capture()) {
            primary.set("synchronous_standby_names", null);
            Await.until("the metric shows the unsafe replication", Duration.ofSeconds(30),
                    () -> relay.admin().metric("relay_ledger_unsafe_replication") == 1.0);
            log.await(Duration.ofSeconds(10), "ERROR", "has asynchronous standbys and no synchronous one", "would not start so");
            replication = relay.admin().json("/health", 200).get("replication");
            assertEquals("ASYNCHRONOUS", replication.get("status").asText(), replication.toString());
            assertFalse(replication.get("allowed").asBoolean(), replication.toString());
            assertEquals("0000", Telegram.rspCode(send(relay)));
        }
        primary.set("synchronous_standby_names", "standby");
        Await.until("the metric is 0 again", Duration.ofSeconds(30), () -> relay.admin().metric("relay_ledger_unsafe_replication") == 0.0);
        assertEquals("SYNCHRONOUS", relay.admin().json("/health", 200).get("replication").get("status").asText());

        // the standby named, but the relay's own sessions do not wait for it
        line = refusal(RelayUnderTest.onLedger(ledger + "&options=-c%20synchronous_commit%3Dlocal", core.url())).getMessage();
        assertTrue(line.contains("synchronous_commit local for the relay's sessions does not wait for a standby"), line);
    }

    private static byte[] send(RelayUnderTest relay) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return channel.send(transfer(newGuid()));
        }
    }
}
