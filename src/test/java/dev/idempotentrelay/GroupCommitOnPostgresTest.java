package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay whose claims are committed in groups on a real PostgreSQL ledger: a group whose commit fails answers E902 to
 * every transfer in it and calls the core for none, and keeps none of their rows; sent again, each is claimed and
 * called once; /metrics says how large the groups were. The relay's one writer gathers up to four writes for 1.5 s, so
 * the four transfers sent together are one group.
 */
class GroupCommitOnPostgresTest {

    private CoreSimulator core;
    private RelayUnderTest relay;
    private LedgerFile ledger;
    private final ExecutorService channels = Executors.newFixedThreadPool(4);

    @BeforeEach
    void start() throws Exception {
        core = CoreSimulator.start(0, 1_500);
        String url = Postgres.shared().newLedger();
        ledger = LedgerFile.at(url);
        relay = RelayUnderTest.onLedger(url, core.url())
                .with("relay.db.postgresql.group-writers", "1")
                .with("relay.db.postgresql.group-max", "4")
                .with("relay.db.postgresql.group-wait-us", "1500000")
                .with("relay.db.connect-wait-ms", "10000")
                .with("relay.db.check-every", "3600")
                .start();
        // the ledger watch's one probe commit at start, a write of the same writer: done before the test's groups
        Await.until("the start's probe commit", Duration.ofSeconds(20),
                () -> ledger.queryLong("SELECT count(*) FROM ledger_probe") == 1);
    }

    @AfterEach
    void stop() {
        channels.shutdownNow();
        if (relay != null) {
            relay.close();
        }
        core.close();
    }

    private List<String> sendTogether(List<String> guids) throws Exception {
        List<Future<byte[]>> replies = new ArrayList<>();
        for (String guid : guids) {
            replies.add(channels.submit(() -> {
                try (Channel channel = Channel.open(relay.port)) {
                    return channel.send(transfer(guid));
                }
            }));
        }
        List<String> codes = new ArrayList<>();
        for (Future<byte[]> reply : replies) {
            codes.add(Telegram.rspCode(reply.get(30, TimeUnit.SECONDS)));
        }
        return codes;
    }

    @Test
    void aGroupWhoseCommitFailsIsE902ForEachTransferWithNoCoreCall() throws Exception {
        List<String> guids = List.of(newGuid(), newGuid(), newGuid(), newGuid());
        // the commit of any transaction that claims the third GUID fails (a deferred constraint trigger): its statements
        // succeed, so the whole group reaches the commit
        ledger.execute("CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "IF NEW.guid = '" + guids.get(2) + "' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$");
        ledger.execute("CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON tx DEFERRABLE INITIALLY DEFERRED "
                + "FOR EACH ROW EXECUTE FUNCTION refuse_at_commit()");
        CoreClient coreView = new CoreClient(core.url());

        assertEquals(List.of("E902", "E902", "E902", "E902"), sendTogether(guids));
        assertEquals(0, coreView.calls(), "the core was called for a claim that was not committed");
        assertEquals(0, ledger.count(), "rows of a group whose commit failed");
        assertEquals(0, ledger.queryLong("SELECT count(*) FROM tx_history"));

        ledger.execute("DROP TRIGGER refuse_at_commit ON tx");
        assertEquals(List.of("0000", "0000", "0000", "0000"), sendTogether(guids));
        for (String guid : guids) {
            assertEquals(1, coreView.calls(guid), guid);
            assertEquals("DONE", ledger.row(guid).get("state"));
        }
        Map<String, Double> metrics = relay.admin().metrics();
        double commits = metrics.getOrDefault("relay_ledger_group_size_count", 0.0);
        double writes = metrics.getOrDefault("relay_ledger_group_size_sum", 0.0);
        // the probe, the four claims and the four records, in fewer commits than writes (the failed group counts none)
        assertEquals(9.0, writes, metrics.toString());
        assertTrue(commits < writes, "commits " + commits + " for " + writes + " writes");
    }
}
