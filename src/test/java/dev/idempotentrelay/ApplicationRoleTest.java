package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerMigrations;
import dev.idempotentrelay.ledger.ReplicationCheck.UnsafeReplicationException;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.MarkdownFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Requests;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.camel.util.ObjectHelper;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two database roles of docs/several-relays.md, "An owner role and an application role", on a real PostgreSQL
 * server of each test's own (roles belong to the whole server): the document's sql block, read from the document, is
 * run as its reader runs it (psql as the superuser, the passwords as psql variables); {@code migrate} as relay_owner
 * makes the ledger; and everything else runs as relay_app, which may change no schema: a relay serving transfers
 * through its channel port, every one-shot command, the timers shared in Quartz's tables, and the check of the
 * ledger's replication, with and without a standby. So the block stays enough for all of them, and the document true.
 */
class ApplicationRoleTest {

    private static final Path DOCUMENT = Path.of("docs/several-relays.md");
    private static final String SECTION = "An owner role and an application role";
    private static final String OWNER_PASSWORD = "owner-secret";
    private static final String APP_PASSWORD = "app-secret";
    private static final Map<String, String> AS_OWNER = Map.of("RELAY_DB_PASSWORD", OWNER_PASSWORD);
    private static final Map<String, String> AS_APP = Map.of("RELAY_DB_PASSWORD", APP_PASSWORD);
    /** PostgreSQL's SQLSTATE insufficient_privilege: "permission denied for ...", "must be owner of ...". */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    @RegisterExtension
    final Resources running = new Resources();

    private Postgres server;
    private CoreSimulator core;
    /** The ledger's URL with no user in it: each command names its role with --db-user (or relay.db.user). */
    private String ledger;

    @BeforeEach
    void aServerWithTheDocumentsRoles() throws Exception {
        List<String> blocks = MarkdownFile.read(DOCUMENT).codeBlocks(SECTION, "sql");
        assertEquals(1, blocks.size(), DOCUMENT + ", section \"" + SECTION + "\": one sql block, not " + blocks.size());
        server = running.keep(Postgres.start());
        server.psql(blocks.get(0), Map.of("owner_password", OWNER_PASSWORD, "app_password", APP_PASSWORD));
        core = running.keep(CoreSimulator.start(0, 1_000));
        ledger = "jdbc:postgresql://127.0.0.1:" + server.port + "/ledger";
    }

    @Test
    void theOwnerMigratesAndTheApplicationRoleServesTransfersAndRunsEveryOneShotCommand() throws Exception {
        migrateAsOwner();
        // the one write right the document lets the DBA take back: relay_app only reads Flyway's table
        server.psql("\\connect ledger\n" + theDocumentsSpan("REVOKE INSERT, UPDATE, DELETE ON flyway_schema_history") + "\n", Map.of());

        RelayUnderTest relay = running.keep(asApp(RelayUnderTest.onLedger(ledger, core.url())).start());
        assertEquals("relay_app", server.query("SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_activity"
                + " WHERE datname = 'ledger' AND application_name = 'idempotent-relay'"));
        JsonNode health = relay.admin().json("/health", 200);
        assertEquals("UP", health.get("ledger").asText(), health.toString());
        assertEquals("NO_STANDBY", health.get("replication").get("status").asText(), health.toString());

        // a new GUID, its resend byte for byte, the core called once, the history written by the triggers as relay_app
        String done = newGuid();
        byte[] reply;
        try (Channel channel = Channel.open(relay.port)) {
            reply = channel.send(transfer(done));
            assertEquals("0000", Telegram.rspCode(reply));
            assertArrayEquals(reply, channel.send(transfer(done)));
        }
        assertEquals(1, new CoreClient(core.url()).calls(done));
        List<String> throughTheChannel = List.of("null>SENT null 1 relay-a channel", "SENT>DONE 0000 1 relay-a channel");
        assertEquals(throughTheChannel, history(relay, done));

        // work for each one-shot command, left as the ledger's own life leaves it
        LedgerFile asOperator = LedgerFile.at(server.url("ledger"));
        String old = newGuid();
        String lost = newGuid();
        assertEquals("0000", send(relay, old));
        assertEquals("0000", send(relay, lost));
        asOperator.backdate(old, 8 * 24 * 3_600);
        // the core applied it, and its answer was lost: UNKNOWN for resolve to settle by inquiry
        asOperator.execute("UPDATE tx SET state = 'UNKNOWN', rsp_code = 'E901', response = NULL WHERE guid = '" + lost + "'");
        asOperator.backdate(lost, 120);
        // certainly not delivered: FAILED for reprocess to send once
        String failed = newGuid();
        asOperator.insert(failed, "FAILED", "E902", transfer(failed), null, 1, 120);

        OneShot purge = asApp("purge", "--db", ledger, "--db-user", "relay_app", "--days", "7");
        assertEquals(0, purge.exitCode, purge.toString());
        assertTrue(purge.summary().startsWith("purge: 1 deleted in 1 batch"), purge.toString());
        assertNull(asOperator.row(old));

        OneShot resolve = asApp("resolve", "--db", ledger, "--db-user", "relay_app", "--core", core.url(), "--min-age", "60");
        assertEquals(0, resolve.exitCode, resolve.toString());
        assertEquals("resolve: 1 done, 0 failed, 0 kept", resolve.summary());
        assertEquals("DONE", asOperator.row(lost).get("state"));

        OneShot reprocess = asApp("reprocess", "--db", ledger, "--db-user", "relay_app", "--core", core.url(), "--max-attempts", "5");
        assertEquals(0, reprocess.exitCode, reprocess.toString());
        assertEquals("reprocess: 1 done, 0 failed, 0 unknown, 0 skipped", reprocess.summary());
        assertEquals("DONE", asOperator.row(failed).get("state"));
        assertEquals(1, new CoreClient(core.url()).calls(failed));

        OneShot show = asApp("ledger", "show", done, "--db", ledger, "--db-user", "relay_app");
        assertEquals(0, show.exitCode, show.toString());
        assertTrue(show.out.stream().anyMatch(line -> line.matches("state\\s+DONE")), show.toString());
        assertTrue(show.out.stream().anyMatch(line -> line.matches("reply\\.raw\\s+" + Pattern.quote(Requests.text(reply)))),
                show.toString());

        OneShot history = asApp("ledger", "history", old, "--db", ledger, "--db-user", "relay_app");
        assertEquals(0, history.exitCode, history.toString());
        assertEquals(4, history.out.size(), history.toString());
        assertTrue(history.out.get(3).matches("\\S+ \\S+\\s+DONE\\s+purged\\s+0000\\s+1\\s+\\S+\\s+purge"), history.toString());

        OneShot list = asApp("ledger", "list", "--state", "DONE", "--db", ledger, "--db-user", "relay_app");
        assertEquals(0, list.exitCode, list.toString());
        for (String guid : List.of(done, lost, failed)) {
            assertTrue(list.out.stream().anyMatch(line -> line.startsWith(guid + "  DONE")), guid + " in " + list);
        }

        OneShot stats = asApp("ledger", "stats", "--db", ledger, "--db-user", "relay_app");
        assertEquals(0, stats.exitCode, stats.toString());
        assertTrue(stats.out.stream().anyMatch(line -> line.matches("DONE\\s+3\\s+.*")), stats.toString());
    }

    @Test
    void theApplicationRoleCannotChangeTheSchemaAndIsToldToRunMigrateWhenTheLedgerIsBehind() throws Exception {
        // the previous release's migrate, as relay_owner: the ledger at version 4, Quartz's tables (5) not made yet
        Flyway.configure(LedgerMigrations.class.getClassLoader())
                .dataSource(ledger, "relay_owner", OWNER_PASSWORD)
                .locations(LedgerMigrations.location(LedgerDialect.POSTGRESQL))
                .placeholders(Map.of("lock_timeout_ms", "1000"))
                .target("4")
                .load().migrate();
        String behind = "the ledger is at version 4, this relay needs \\d+: run `idempotent-relay migrate` as a role that may change the schema";

        // a relay of this release and every one-shot command refuse it, in one line naming migrate
        Exception refused = assertThrows(Exception.class, () -> asApp(RelayUnderTest.onLedger(ledger, core.url())).start().close());
        assertTrue(Pattern.compile(behind).matcher(messages(refused)).find(), messages(refused));
        for (List<String> command : List.of(List.of("ledger", "stats"), List.of("purge", "--days", "7"))) {
            List<String> args = new ArrayList<>(command);
            args.addAll(List.of("--db", ledger, "--db-user", "relay_app"));
            OneShot oneShot = asApp(args.toArray(String[]::new));
            assertEquals(2, oneShot.exitCode, oneShot.toString());
            assertEquals(1, oneShot.err.size(), oneShot.toString());
            assertTrue(Pattern.compile(behind).matcher(oneShot.err.get(0)).find(), oneShot.toString());
        }

        // relay_app may not migrate it, nor change the schema any other way
        OneShot migrate = asApp("migrate", "--db", ledger, "--db-user", "relay_app");
        assertEquals(1, migrate.exitCode, migrate.toString());
        assertTrue(String.join("\n", migrate.err).contains("a migration failed: ERROR: permission denied for schema public"), migrate.toString());
        assertEquals("4", onLedger("SELECT max(version::int) FROM flyway_schema_history WHERE success"));
        assertNull(onLedger("SELECT to_regclass('qrtz_locks')::text"));
        try (Connection app = DriverManager.getConnection(ledger, "relay_app", APP_PASSWORD)) {
            assertRefused(app, "CREATE TABLE tx_copy (guid VARCHAR(32))", "permission denied for schema public");
            assertRefused(app, "ALTER TABLE tx ADD COLUMN note TEXT", "must be owner of table tx");
            assertRefused(app, "DROP TABLE tx_history", "must be owner of table tx_history");
            assertRefused(app, "CREATE INDEX tx_rsp_code ON tx (rsp_code)", "must be owner of table tx");
            assertRefused(app, "TRUNCATE tx", "permission denied for table tx");
            assertRefused(app, "CREATE TEMPORARY TABLE scratch (guid VARCHAR(32))", "permission denied to create temporary tables");
        }

        // relay_owner's migrate adds version 5, whose tables relay_app may use at once: no grant after a migration
        OneShot owner = OneShot.withEnvironment(AS_OWNER, "migrate", "--db", ledger, "--db-user", "relay_owner");
        assertEquals(0, owner.exitCode, owner.toString());
        assertTrue(owner.out.contains("migrate: applied version 5: expand quartz job store"), owner.toString());
        assertEquals(0, asApp("ledger", "stats", "--db", ledger, "--db-user", "relay_app").exitCode);
        try (Connection app = DriverManager.getConnection(ledger, "relay_app", APP_PASSWORD); Statement statement = app.createStatement()) {
            assertEquals(1, statement.executeUpdate("INSERT INTO qrtz_locks (sched_name, lock_name) VALUES ('test', 'TRIGGER_ACCESS')"));
            assertEquals(1, statement.executeUpdate("UPDATE qrtz_locks SET lock_name = 'STATE_ACCESS' WHERE sched_name = 'test'"));
            assertEquals(1, statement.executeUpdate("DELETE FROM qrtz_locks WHERE sched_name = 'test'"));
        }
    }

    @Test
    void aClusteredRelayKeepsItsTimersInQuartzsTablesAsTheApplicationRole() throws Exception {
        migrateAsOwner();
        RelayUnderTest relay = running.keep(asApp(RelayUnderTest.onLedger(ledger, core.url()))
                .with("relay.jobs.enabled", "true")
                .with("relay.jobs.clustered", "true")
                .with("relay.jobs.every", "1")
                .with("relay.jobs.purge-every", "1")
                .start());
        String old = newGuid();
        assertEquals("0000", send(relay, old));
        LedgerFile.at(server.url("ledger")).backdate(old, 8 * 24 * 3_600);

        Await.until("the shared purge timer fired on relay_app's relay and purged the old row", Duration.ofSeconds(30),
                () -> history(relay, old).size() == 3);
        assertEquals("DONE>purged 0000 1 relay-a purge", history(relay, old).get(2));
        Await.until("the resolve and reprocess timers fired", Duration.ofSeconds(30),
                () -> relay.admin().metric("relay_job_runs_total{job=\"resolve\"}") >= 1
                        && relay.admin().metric("relay_job_runs_total{job=\"reprocess\"}") >= 1);
        assertEquals("relay-jobs-idempotent-relay", onLedger("SELECT sched_name FROM qrtz_scheduler_state"));
        assertEquals("purge-ledger,reprocess-failed,resolve-unknown",
                onLedger("SELECT string_agg(trigger_name, ',' ORDER BY trigger_name) FROM qrtz_triggers"));
    }

    @Test
    void theApplicationRoleTellsABaseBackupFromAStandby() throws Exception {
        migrateAsOwner();
        // a nightly base backup of a server without standbys: with pg_read_all_stats the relay sees what it is
        running.keep(server.baseBackup());
        RelayUnderTest relay = running.keep(asApp(RelayUnderTest.onLedger(ledger, core.url())).start());
        JsonNode replication = relay.admin().json("/health", 200).get("replication");
        assertEquals("NO_STANDBY", replication.get("status").asText(), replication.toString());
        assertEquals("0000", send(relay, newGuid()));

        // why the block grants it: without it the backup's walsender hides its state, and is taken for a standby
        server.execute("REVOKE pg_read_all_stats FROM relay_app");
        String line = refusal(asApp(RelayUnderTest.onLedger(ledger, core.url())));
        assertTrue(line.contains("has asynchronous standbys and no synchronous one"), line);
        assertTrue(line.contains("(name and state hidden from this database user)"), line);
    }

    @Test
    void theApplicationRoleSeesTheStandbyByNameAndState() throws Exception {
        // the database the block made is written out now: pg_basebackup's own checkpoint, spread, took 90 s for it
        server.execute("CHECKPOINT");
        running.keep(server.standby("standby"));
        migrateAsOwner();

        // asynchronous, PostgreSQL's default: refused, the standby named as it is
        String line = refusal(asApp(RelayUnderTest.onLedger(ledger, core.url())));
        assertTrue(line.contains("has asynchronous standbys and no synchronous one"), line);
        assertTrue(line.contains("standby (async, streaming)"), line);

        // synchronous: it starts, and says which standby its commits wait for
        server.set("synchronous_standby_names", "standby");
        RelayUnderTest relay = running.keep(asApp(RelayUnderTest.onLedger(ledger, core.url())).start());
        JsonNode replication = relay.admin().json("/health", 200).get("replication");
        assertEquals("SYNCHRONOUS", replication.get("status").asText(), replication.toString());
        assertTrue(replication.get("detail").asText().contains("standby (sync, streaming)"), replication.toString());
        assertEquals("0000", send(relay, newGuid()));
    }

    /** `migrate` as relay_owner, as the document says: every migration applied to the new database. */
    private void migrateAsOwner() {
        OneShot migrate = OneShot.withEnvironment(AS_OWNER, "migrate", "--db", ledger, "--db-user", "relay_owner");
        assertEquals(0, migrate.exitCode, migrate.toString());
        assertTrue(migrate.summary().matches("migrate: the ledger " + Pattern.quote(ledger) + " is at version (\\d+) \\(\\1 applied\\)"),
                migrate.toString());
    }

    /** A relay as relay_app, its password where an operator puts it, named relay-a in the history it writes. */
    private static RelayUnderTest.Builder asApp(RelayUnderTest.Builder relay) {
        return relay.with("relay.db.user", "relay_app").with("relay.name", "relay-a").environment(AS_APP);
    }

    /** A one-shot command with relay_app's password in RELAY_DB_PASSWORD (the role is in its arguments). */
    private static OneShot asApp(String... args) {
        return OneShot.withEnvironment(AS_APP, args);
    }

    /** The code span of the document's section that begins so: a statement the prose gives. */
    private static String theDocumentsSpan(String beginning) throws Exception {
        return MarkdownFile.read(DOCUMENT).codeSpans().stream().map(MarkdownFile.Link::target)
                .filter(span -> span.startsWith(beginning)).findFirst()
                .orElseThrow(() -> new AssertionError(DOCUMENT + " names no `" + beginning + "...`"));
    }

    /** The first column of a query's first row on the ledger's database, as the superuser (as a DBA looks). */
    private String onLedger(String sql) throws SQLException {
        return LedgerFile.at(server.url("ledger")).queryString(sql);
    }

    /** The messages of an exception and of each of its causes, one per line. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            all.append(cause.getMessage()).append('\n');
        }
        return all.toString();
    }

    private static void assertRefused(Connection connection, String sql, String message) {
        SQLException refused = assertThrows(SQLException.class, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }, sql);
        assertEquals(INSUFFICIENT_PRIVILEGE, refused.getSQLState(), sql + ": " + refused.getMessage());
        assertTrue(refused.getMessage().contains(message), sql + ": " + refused.getMessage());
    }

    private static String refusal(RelayUnderTest.Builder relay) {
        Exception failed = assertThrows(Exception.class, () -> relay.start().close());
        UnsafeReplicationException unsafe = ObjectHelper.getException(UnsafeReplicationException.class, failed);
        assertNotNull(unsafe, failed.toString());
        return unsafe.getMessage();
    }

    private static String send(RelayUnderTest relay, String guid) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return Telegram.rspCode(channel.send(transfer(guid)));
        }
    }

    /** The GUID's history as GET /ledger/{guid}/history answers it: "from>to rsp_code attempts relay cause" per change. */
    private static List<String> history(RelayUnderTest relay, String guid) throws Exception {
        List<String> changes = new ArrayList<>();
        for (JsonNode change : relay.admin().json("/ledger/" + guid + "/history", 200)) {
            changes.add(change.get("from_state").asText() + ">" + change.get("to_state").asText() + " " + change.get("rsp_code").asText()
                    + " " + change.get("attempts").asText() + " " + change.get("relay").asText() + " " + change.get("cause").asText());
        }
        return changes;
    }
}
