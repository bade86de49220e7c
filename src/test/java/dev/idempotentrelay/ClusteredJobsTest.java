package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * relay.jobs.clustered on a PostgreSQL ledger (a real server, {@link Postgres}): the timers live in Quartz's JDBC job
 * store in the ledger's database, and the timed routes settle rows as with the in-memory store. Two relays of one
 * cluster in one JVM would share one Quartz scheduler (Quartz keeps them by name, JVM-wide): ClusteredJobsIT runs them
 * as two processes.
 */
class ClusteredJobsTest {

    private static final String RUNS = "relay_job_runs_total{job=\"resolve\"}";

    @RegisterExtension
    final Resources running = new Resources();

    private CoreSimulator core;
    private String ledger;

    @BeforeEach
    void startCoreAndLedger() throws Exception {
        core = running.keep(CoreSimulator.start(0, 1_500));
        ledger = Postgres.shared().newLedger();
    }

    private RelayUnderTest.Builder clusteredRelay() {
        return RelayUnderTest.onLedger(ledger, core.url())
                .readTimeoutMs(1_000)
                .with("relay.jobs.enabled", "true")
                .with("relay.jobs.clustered", "true")
                .with("relay.jobs.every", "1")
                .with("relay.resolve.min-age", "1")
                .with("relay.resolve.sent-stale-after", "2");
    }

    @Test
    void aClusteredRelaysResolveMakesAStaleSentUnknownAndSettlesItByInquiry() throws Exception {
        // a transfer the core applied, then left SENT as by a relay that died before it recorded the answer
        String guid = newGuid();
        try (RelayUnderTest sender = RelayUnderTest.onLedger(ledger, core.url()).start(); Channel channel = Channel.open(sender.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
        }
        update("UPDATE tx SET state = 'SENT', rsp_code = NULL, response = NULL, updated_at = '2000-01-01 00:00:00' WHERE guid = '"
                + guid + "'");

        RelayUnderTest relay = running.keep(clusteredRelay().start());
        Await.until("resolve settled the stale SENT row", Duration.ofSeconds(30),
                () -> "DONE".equals(text("SELECT state FROM tx WHERE guid = '" + guid + "'")));
        assertEquals("0000", text("SELECT rsp_code FROM tx WHERE guid = '" + guid + "'"));
        assertNotNull(text("SELECT encode(response, 'hex') FROM tx WHERE guid = '" + guid + "'"));
        assertEquals(1, new CoreClient(core.url()).calls(guid));
        assertEquals(1.0, relay.admin().metric("relay_job_rows_total{job=\"resolve\",outcome=\"stale-sent-made-unknown\"}"));
        assertEquals(1.0, relay.admin().metric("relay_job_rows_total{job=\"resolve\",outcome=\"done\"}"));

        // and the timers were Quartz's JDBC job store's, in the ledger's database: this relay checked in, three triggers
        assertEquals(List.of("relay-jobs-idempotent-relay"), column("SELECT sched_name FROM qrtz_scheduler_state"));
        assertTrue(column("SELECT instance_name FROM qrtz_scheduler_state").get(0).contains("-" + relay.port + "-"),
                column("SELECT instance_name FROM qrtz_scheduler_state").toString());
        assertEquals(List.of("purge-ledger", "reprocess-failed", "resolve-unknown"),
                column("SELECT trigger_name FROM qrtz_triggers ORDER BY trigger_name"));
    }

    @Test
    void aRelayStartedAgainOnTheStoredTimersKeepsFiringThem() throws Exception {
        // the stopped relay leaves the trigger it had acquired for its next run ACQUIRED (Quartz releases none when
        // it halts): the next relay takes it over once the stopped one missed its check-ins (1 s here, plus 7.5 s)
        try (RelayUnderTest first = clusteredRelay().with("relay.jobs.cluster-checkin-ms", "1000").start()) {
            Await.until("the first relay's resolve ran", Duration.ofSeconds(20), () -> first.admin().metric(RUNS) >= 1);
        }
        assertEquals(3, column("SELECT trigger_name FROM qrtz_triggers").size());
        RelayUnderTest again = running.keep(clusteredRelay().with("relay.jobs.cluster-checkin-ms", "1000").start());
        Await.until("the timers stored by the first relay fire in the second", Duration.ofSeconds(20),
                () -> again.admin().metric(RUNS) >= 1);
        assertEquals(3, column("SELECT trigger_name FROM qrtz_triggers").size());
    }

    @Test
    void withoutClusteringTheTimersStayInMemoryAndQuartzsTablesStayEmpty() throws Exception {
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(ledger, core.url())
                .with("relay.jobs.enabled", "true").with("relay.jobs.every", "1").start());
        Await.until("resolve ran", Duration.ofSeconds(20), () -> relay.admin().metric(RUNS) >= 1);
        // migration 5 made them, as on every PostgreSQL ledger; no relay wrote to them
        assertEquals("qrtz_triggers", text("SELECT to_regclass('qrtz_triggers')::text"));
        assertEquals("0", text("SELECT count(*) FROM qrtz_triggers"));
        assertEquals("0", text("SELECT count(*) FROM qrtz_scheduler_state"));
    }

    private void update(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ledger); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate(sql));
        }
    }

    private String text(String sql) throws Exception {
        List<String> values = column(sql);
        return values.isEmpty() ? null : values.get(0);
    }

    private List<String> column(String sql) throws Exception {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(ledger); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
