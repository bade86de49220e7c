package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotentrelay.support.Postgres;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL group-commit writer on a real server and a migrated ledger: a group of claims with a GUID twice and
 * GUIDs already in the ledger claims each GUID once; two writers (two relays) with the same GUIDs in opposite orders do
 * not deadlock; a group whose commit fails fails every write of it and keeps none; a statement that fails fails alone.
 * Each group is made by one writer thread waiting (group-wait) while the test's callers queue their writes.
 */
class PostgresGroupCommitTest {

    /** The claim of sql/claim-new-guid.sql with its placeholders as on PostgreSQL, and a transfer code as a parameter. */
    private static final String CLAIM = "INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause) "
            + "VALUES (?, ?, 'SENT', ?, 1, '2026-12-06 00:00:00', '2026-12-06 00:00:00', 'test', 'channel') ON CONFLICT (guid) DO NOTHING";
    /** The claims of a group at once, as sql/postgresql/claim-new-guids.sql makes them: the claim's parameters as arrays. */
    private static final String CLAIMS = "INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause) "
            + "SELECT u.guid, u.tx_code, 'SENT', u.request, 1, '2026-12-06 00:00:00', '2026-12-06 00:00:00', 'test', 'channel' "
            + "FROM unnest(?::varchar[], ?::varchar[], ?::bytea[]) WITH ORDINALITY AS u(guid, tx_code, request, n) ORDER BY u.guid, u.n "
            + "ON CONFLICT (guid) DO NOTHING RETURNING guid";
    private static final String BUMP = "UPDATE tx SET attempts = attempts + 1, relay = ? WHERE guid = ?";
    private static final SqlPrepareStatementStrategy BINDER = new DefaultSqlPrepareStatementStrategy();

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final List<PostgresGroupCommit> writers = new ArrayList<>();
    private Postgres server;
    private HikariDataSource pool;

    @BeforeEach
    void ledger() throws Exception {
        server = Postgres.shared();
        pool = new HikariDataSource();
        pool.setJdbcUrl(server.newLedger());
        pool.setMaximumPoolSize(8);
    }

    @AfterEach
    void close() throws Exception {
        callers.shutdownNow();
        for (PostgresGroupCommit writer : writers) {
            writer.close();
        }
        pool.close();
    }

    /** A writer of one thread that gathers a group for up to 2 s after its first write: the test's writes make one group. */
    private PostgresGroupCommit writer(int maxGroup) {
        PostgresGroupCommit writer = new PostgresGroupCommit(pool, 30_000, maxGroup, 2_000_000, 1);
        writers.add(writer);
        return writer;
    }

    private Future<Integer> claim(PostgresGroupCommit writer, String guid, String txCode) {
        return claim(writer, guid, txCode, null);
    }

    /** A claim that the writer runs with the others of its group in {@code groupSql} (CLAIMS), or one by one (null). */
    private Future<Integer> claim(PostgresGroupCommit writer, String guid, String txCode, String groupSql) {
        return callers.submit(() -> writer.write(CLAIM, List.of(guid, txCode, new byte[] {1}), BINDER, guid, groupSql));
    }

    private String query(String sql) throws Exception {
        try (var c = pool.getConnection(); var s = c.createStatement(); var r = s.executeQuery(sql)) {
            StringBuilder out = new StringBuilder();
            while (r.next()) {
                out.append(out.length() == 0 ? "" : ",").append(r.getString(1));
            }
            return out.toString();
        }
    }

    private void execute(String sql) throws Exception {
        try (var c = pool.getConnection(); var s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void aGroupWithAGuidTwiceAndGuidsAlreadyInTheLedgerClaimsEachGuidOnce() throws Exception {
        claimsEachGuidOnce(null);
    }

    @Test
    void aGroupClaimedInOneStatementClaimsEachGuidOnceToo() throws Exception {
        claimsEachGuidOnce(CLAIMS);
    }

    /** 36 new GUIDs, nine of them twice (transfer codes TR01 then TR02), and four GUIDs already in the ledger: one group. */
    private void claimsEachGuidOnce(String groupSql) throws Exception {
        List<String> old = List.of("G-OLD-1", "G-OLD-2", "G-OLD-3", "G-OLD-4");
        for (String guid : old) {
            execute("INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at) "
                    + "VALUES ('" + guid + "', 'OLD1', 'DONE', '\\x00', 1, '2026-12-01 00:00:00', '2026-12-01 00:00:00')");
        }
        PostgresGroupCommit writer = writer(64);
        Map<String, List<Future<Integer>>> claims = new HashMap<>();
        for (int i = 0; i < 36; i++) {
            String guid = "G-NEW-" + i;
            claims.computeIfAbsent(guid, g -> new ArrayList<>()).add(claim(writer, guid, "TR01", groupSql));
            if (i % 4 == 0) { // nine of them twice in the group
                claims.get(guid).add(claim(writer, guid, "TR02", groupSql));
            }
        }
        for (String guid : old) {
            claims.computeIfAbsent(guid, g -> new ArrayList<>()).add(claim(writer, guid, "TR01", groupSql));
        }
        int writes = 0;
        for (Map.Entry<String, List<Future<Integer>>> guid : claims.entrySet()) {
            int won = 0;
            for (int i = 0; i < guid.getValue().size(); i++) {
                int count = guid.getValue().get(i).get(30, TimeUnit.SECONDS);
                if (count == 1 && guid.getValue().size() == 2) {
                    // the row holds the request of the claim told it won: the other is answered from that row
                    assertEquals(i == 0 ? "TR01" : "TR02", query("SELECT tx_code FROM tx WHERE guid = '" + guid.getKey() + "'"));
                }
                won += count;
                writes++;
            }
            assertEquals(guid.getKey().startsWith("G-OLD") ? 0 : 1, won, guid.getKey() + ": claims that won");
        }
        assertEquals(49, writes);
        assertArrayEquals(new long[] {1, 49}, writer.commitsAndWrites(), "one commit for the group of 49");
        assertEquals("40", query("SELECT count(*) FROM tx"));
        assertEquals("OLD1,OLD1,OLD1,OLD1", query("SELECT tx_code FROM tx WHERE guid LIKE 'G-OLD%'"), "rows already there untouched");
        // the history's row of each claim, written in the same transaction: one per new GUID, none for the rest
        assertEquals("36", query("SELECT count(*) FROM tx_history WHERE from_state IS NULL AND guid LIKE 'G-NEW%'"));
        assertEquals("4", query("SELECT count(*) FROM tx_history WHERE guid LIKE 'G-OLD%'"), "only the rows' own inserts");
        assertEquals(0, writer.rolledBack());
        assertEquals(groupSql == null ? 0 : 1, writer.runsAtOnce(), "runs of the group in its one statement");
    }

    @Test
    void twoWritersChangingTheSameRowsInOppositeOrdersDoNotDeadlock() throws Exception {
        List<String> guids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            guids.add(String.format("G-ROW-%02d", i));
            execute("INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at) "
                    + "VALUES ('" + guids.get(i) + "', 'TR01', 'SENT', '\\x00', 0, '2026-12-01 00:00:00', '2026-12-01 00:00:00')");
        }
        // each update holds its row's lock 5 ms before it changes it, so that the two groups (300 ms each) overlap
        execute("CREATE FUNCTION slow_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.005); RETURN NEW; END $$");
        execute("CREATE TRIGGER slow_update BEFORE UPDATE ON tx FOR EACH ROW EXECUTE FUNCTION slow_update()");
        PostgresGroupCommit a = writer(64);
        PostgresGroupCommit b = writer(64);
        List<String> reversed = new ArrayList<>(guids);
        Collections.reverse(reversed);
        List<Future<Integer>> updates = new ArrayList<>();
        // queued in opposite orders: unsorted, each group would lock its rows in the order it was given
        for (int i = 0; i < guids.size(); i++) {
            String forward = guids.get(i);
            String backward = reversed.get(i);
            updates.add(callers.submit(() -> a.write(BUMP, List.of("relay-a", forward), BINDER, forward, null)));
            updates.add(callers.submit(() -> b.write(BUMP, List.of("relay-b", backward), BINDER, backward, null)));
        }
        for (Future<Integer> update : updates) {
            assertEquals(1, update.get(60, TimeUnit.SECONDS));
        }
        assertEquals(0, a.rolledBack() + b.rolledBack(), "a group rolled back: a deadlock (40P01) or another statement failure");
        assertArrayEquals(new long[] {1, 60}, a.commitsAndWrites());
        assertArrayEquals(new long[] {1, 60}, b.commitsAndWrites());
        assertEquals("60", query("SELECT count(*) FROM tx WHERE attempts = 2"));
    }

    @Test
    void aGroupWhoseCommitFailsFailsEveryWriteAndKeepsNone() throws Exception {
        // a deferred constraint trigger: the statements succeed, the commit fails
        execute("CREATE FUNCTION refuse_g_bad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                + "IF NEW.guid = 'G-BAD' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$");
        execute("CREATE CONSTRAINT TRIGGER refuse_g_bad AFTER INSERT ON tx DEFERRABLE INITIALLY DEFERRED "
                + "FOR EACH ROW EXECUTE FUNCTION refuse_g_bad()");
        PostgresGroupCommit writer = writer(64);
        List<Future<Integer>> claims = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            claims.add(claim(writer, "G-" + i, "TR01"));
        }
        claims.add(claim(writer, "G-BAD", "TR01"));
        for (Future<Integer> claim : claims) {
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> claim.get(30, TimeUnit.SECONDS));
            assertInstanceOf(SQLException.class, failed.getCause());
            assertTrue(failed.getCause().getMessage().contains("refused at commit"), failed.getCause().getMessage());
        }
        assertEquals("0", query("SELECT count(*) FROM tx"));
        assertEquals("0", query("SELECT count(*) FROM tx_history"));
        assertEquals(0, writer.rolledBack(), "a failed commit is not run again");
        assertArrayEquals(new long[] {0, 0}, writer.commitsAndWrites());
        // the writer goes on, on a new connection
        execute("DROP TRIGGER refuse_g_bad ON tx");
        assertEquals(1, claim(writer, "G-AFTER", "TR01").get(30, TimeUnit.SECONDS));
    }

    @Test
    void aStatementThatFailsFailsItsWriteAloneAndTheOthersCommit() throws Exception {
        failsAlone(null);
    }

    @Test
    void aGroupStatementThatFailsFailsTheRefusedWriteAloneAndTheOthersCommit() throws Exception {
        failsAlone(CLAIMS);
    }

    private void failsAlone(String groupSql) throws Exception {
        PostgresGroupCommit writer = writer(64);
        List<Future<Integer>> claims = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            claims.add(claim(writer, "G-" + i, "TR01", groupSql));
        }
        // a transfer code longer than the column's VARCHAR(4): refused by the server, in the middle of the group
        Future<Integer> refused = claim(writer, "G-2A", "TOOLONG", groupSql);
        for (Future<Integer> claim : claims) {
            assertEquals(1, claim.get(30, TimeUnit.SECONDS));
        }
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> refused.get(30, TimeUnit.SECONDS));
        assertEquals("22001", ((SQLException) failed.getCause()).getSQLState(), failed.getCause().getMessage());
        assertEquals("G-0,G-1,G-2,G-3,G-4", query("SELECT guid FROM tx ORDER BY guid"));
        assertEquals(1, writer.rolledBack());
    }
}
