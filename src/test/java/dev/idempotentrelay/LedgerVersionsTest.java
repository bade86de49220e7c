package dev.idempotentrelay;

import static dev.idempotentrelay.support.Refusal.assertRefusedStarting;
import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.EarlierLedgers;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPEC section 5's versioned ledger, on a real SQLite file and a real PostgreSQL server: the ledgers that earlier builds
 * made upgrade by the migrations, and each old GUID's resend is answered byte for byte, without the core; `migrate` run
 * twice applies nothing; a relay and every one-shot command refuse, with one line naming migrate, a PostgreSQL ledger
 * behind this build, and a ledger at a newer version unless its newer migrations are marked expand; on SQLite `run`
 * migrates the file it owns and a one-shot command never does.
 */
class LedgerVersionsTest {

    /** This build's version: the number of its last migration. */
    private static final String VERSION = "6";

    @TempDir
    Path dir;

    @RegisterExtension
    final Resources running = new Resources();

    static Stream<Arguments> earlierLedgers() {
        List<Arguments> all = new ArrayList<>();
        String[] baselines = {"1", "3", "4"};
        for (String kind : List.of("sqlite", "postgresql")) {
            for (int i = 0; i < EarlierLedgers.BUILDS.size(); i++) {
                all.add(Arguments.of(EarlierLedgers.BUILDS.get(i), kind, baselines[i]));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{1} ledger of {0}")
    @MethodSource("earlierLedgers")
    void aLedgerOfAnEarlierBuildUpgradesAndEveryStoredReplyIsAnsweredByteForByte(String build, String kind, String baseline)
            throws Exception {
        String db = EarlierLedgers.restore(build, kind, dir);
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay;
        if (kind.equals("postgresql")) {
            // a relay refuses the ledger until migrate has run
            OneShot refused = OneShot.run("purge", "--db", db, "--days", "7");
            assertRefusedStarting("idempotent-relay: purge: cannot use ledger " + db + ": the ledger is at version " + baseline
                    + " (made before versioned migrations), this relay needs " + VERSION + ": run `idempotent-relay migrate`", refused.exitCode,
                    refused.out, refused.err);
            OneShot migrate = OneShot.run("migrate", "--db", db);
            assertEquals(0, migrate.exitCode, migrate.toString());
            assertEquals("migrate: recorded the ledger made before versioned migrations at version " + baseline, migrate.out.get(0), migrate.toString());
            assertEquals("migrate: the ledger " + db + " is at version " + VERSION + " (" + (Integer.parseInt(VERSION) - Integer.parseInt(baseline))
                    + " applied)", migrate.summary());
            relay = running.keep(RelayUnderTest.onLedger(db, core.url()).start());
        } else {
            // the relay that owns the file migrates it at its start: the README's commands need no other step
            relay = running.keep(RelayUnderTest.on(Path.of(db), core.url()).start());
        }
        assertEquals(List.of("ledger made before versioned migrations"),
                query(db, "SELECT description FROM flyway_schema_history WHERE version = '" + baseline + "'"));
        assertEquals(List.of(VERSION), query(db, "SELECT max(CAST(version AS INTEGER)) FROM flyway_schema_history WHERE success"));

        int answered = 0;
        for (EarlierLedgers.Transfer t : EarlierLedgers.transfers(build, kind)) {
            if (!t.state().equals("DONE") && !t.state().equals("UNKNOWN")) {
                continue;
            }
            byte[] request = Telegram.transferRequest(t.guid(), t.channel(), t.from(), t.to(), t.amount(), t.memo());
            byte[] reply;
            try (Channel channel = Channel.open(relay.port)) {
                reply = channel.send(request);
            }
            String onTheWire = String.format("%04d", reply.length) + new String(reply, StandardCharsets.US_ASCII);
            assertEquals(t.reply(), onTheWire, t.guid() + " (" + t.state() + ")");
            answered++;
        }
        assertEquals(7, answered, "the DONE and UNKNOWN rows of " + build);
        assertEquals(0, coreView.calls(), "no resend reached the core");

        // and a new transfer goes through, its history recorded on the upgraded ledger
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
        }
        assertEquals(List.of("null>SENT", "SENT>DONE"), query(db, "SELECT coalesce(from_state, 'null') || '>' || to_state"
                + " FROM tx_history WHERE guid = '" + guid + "' ORDER BY id"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void migrateOnAnEmptyLedgerAppliesEveryMigrationOnceAndRunAgainNothing(String kind) throws Exception {
        String db = kind.equals("sqlite") ? dir.resolve("fresh.db").toString() : Postgres.shared().newDatabase();
        OneShot first = OneShot.run("migrate", "--db", db);
        assertEquals(List.of("migrate: applied version 1: ledger tx", "migrate: applied version 2: expand history",
                "migrate: applied version 3: expand ledger probe", "migrate: applied version 4: expand history key",
                "migrate: applied version 5: expand quartz job store", "migrate: applied version 6: "
                        + (kind.equals("sqlite") ? "purge deletes in the route" : "expand nothing on postgresql"),
                "migrate: the ledger " + db + " is at version 6 (6 applied)"), first.out, first.toString());
        assertEquals(0, first.exitCode);
        OneShot again = OneShot.run("migrate", "--db", db);
        assertEquals(List.of("migrate: the ledger " + db + " is at version 6: nothing to apply"), again.out, again.toString());
        assertEquals(0, again.exitCode);
        assertEquals(List.of("6"), query(db, "SELECT count(*) FROM flyway_schema_history WHERE version IS NOT NULL"), "each once");
    }

    @Test
    void twoMigratesAtOnceOnAnEmptyDatabaseApplyEachMigrationOnce() throws Exception {
        String db = Postgres.shared().newDatabase();
        java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<String>> done = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            done.add(two.submit(() -> {
                go.await();
                org.postgresql.ds.PGSimpleDataSource ledger = new org.postgresql.ds.PGSimpleDataSource();
                ledger.setURL(db);
                return new dev.idempotentrelay.ledger.LedgerMigrations(ledger, dev.idempotentrelay.ledger.LedgerDialect.POSTGRESQL,
                        1_000, 10).migrate(line -> { }).version();
            }));
        }
        go.countDown();
        for (java.util.concurrent.Future<String> migrate : done) {
            assertEquals(VERSION, migrate.get(120, java.util.concurrent.TimeUnit.SECONDS));
        }
        two.shutdown();
        assertEquals(List.of("1", "2", "3", "4", "5", "6"),
                query(db, "SELECT version FROM flyway_schema_history WHERE version IS NOT NULL ORDER BY installed_rank"));
    }

    @Test
    void onPostgresqlNoCommandButMigrateChangesAnEmptyDatabase() throws Exception {
        String db = Postgres.shared().newDatabase();
        String refusal = "cannot use ledger " + db + ": the ledger is empty (version 0), this relay needs " + VERSION
                + ": run `idempotent-relay migrate` as a role that may change the schema";
        for (String[] command : List.of(new String[] {"run", "--no-jobs", "--db", db, "--port", Integer.toString(Ports.free()), "--admin-port", Integer.toString(Ports.free())},
                new String[] {"purge", "--db", db, "--days", "7"},
                new String[] {"resolve", "--db", db, "--core", "http://127.0.0.1:9", "--min-age", "60"},
                new String[] {"reprocess", "--db", db, "--core", "http://127.0.0.1:9", "--max-attempts", "5"})) {
            OneShot run = OneShot.run(command);
            assertRefusedStarting("idempotent-relay: " + command[0] + ": " + refusal, run.exitCode, run.out, run.err);
        }
        OneShot show = OneShot.run("ledger", "stats", "--db", db);
        assertEquals(2, show.exitCode, show.toString());
        assertEquals(List.of(), query(db, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"), "nothing was made");
    }

    @Test
    void onSqliteAOneShotCommandRefusesAFileBehindAndLeavesItAsItIs() throws Exception {
        String db = EarlierLedgers.restore("2026-12-03-history-first", "sqlite", dir);
        List<String> before = query(db, "SELECT type || ' ' || name FROM sqlite_master ORDER BY name");
        for (String[] command : List.of(new String[] {"purge", "--db", db, "--days", "7"},
                new String[] {"ledger", "stats", "--db", db})) {
            OneShot run = OneShot.run(command);
            assertRefusedStarting("idempotent-relay: " + String.join(" ", List.of(command).subList(0, command[0].equals("ledger") ? 2 : 1))
                    + ": cannot ", run.exitCode, run.out, run.err);
            assertTrue(run.err.get(0).contains("the ledger is at version 3 (made before versioned migrations), this relay needs "
                    + VERSION + ": run `idempotent-relay migrate`"), run.toString());
        }
        assertEquals(before, query(db, "SELECT type || ' ' || name FROM sqlite_master ORDER BY name"), "no DDL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"expand_add_tx_note", "contract_drop_tx_cause"})
    void aLedgerAtANewerVersionIsRunOnOnlyWhenItsNewerMigrationsAreMarkedExpand(String description) throws Exception {
        String db = Postgres.shared().newLedger();
        // as the next release's migrate leaves it: its history names a version this build does not know
        execute(db, "INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                + " installed_by, execution_time, success) VALUES (8, '7', '" + description.replace('_', ' ') + "', 'SQL', 'V7__"
                + description + ".sql', 0, 'postgres', 1, true)");
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        if (description.startsWith("expand")) {
            RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(db, core.url()).start());
            try (Channel channel = Channel.open(relay.port)) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
            OneShot stats = OneShot.run("ledger", "stats", "--db", db);
            assertEquals(0, stats.exitCode, stats.toString());
        } else {
            OneShot purge = OneShot.run("purge", "--db", db, "--days", "7");
            assertRefusedStarting("idempotent-relay: purge: cannot use ledger " + db + ": the ledger is at version 7, newer than this"
                    + " relay's " + VERSION + ", and its migration to version 7 (contract drop tx cause) is not marked expand",
                    purge.exitCode, purge.out, purge.err);
        }
    }

    @Test
    void onSqliteTheRelayThatOwnsTheFileRefusesItAtANewerVersionNotMarkedExpand() throws Exception {
        String db = dir.resolve("newer.db").toString();
        assertEquals(0, OneShot.run("migrate", "--db", db).exitCode);
        // as a later release's migrate leaves it: a version this build does not know, which may remove what it uses
        execute("jdbc:sqlite:" + db, "INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                + " installed_by, execution_time, success) VALUES (8, '7', 'contract drop tx cause', 'SQL', 'V7__contract_drop_tx_cause.sql',"
                + " 0, 'relay', 1, 1)");
        OneShot run = OneShot.run("run", "--no-jobs", "--db", db, "--port", Integer.toString(Ports.free()), "--admin-port",
                Integer.toString(Ports.free()));
        assertRefusedStarting("idempotent-relay: run: cannot use ledger " + db + ": the ledger is at version 7, newer than this relay's "
                + VERSION + ", and its migration to version 7 (contract drop tx cause) is not marked expand", run.exitCode, run.out, run.err);
    }

    private static List<String> query(String db, String sql) throws Exception {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(db.startsWith("jdbc:") ? db : "jdbc:sqlite:" + db);
                Statement s = c.createStatement(); ResultSet rows = s.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }

    private static void execute(String db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
