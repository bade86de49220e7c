package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit on a real SQLite file, under real concurrency: each statement keeps its own count and is committed on return. */
class GroupCommitDataSourceTest {

    private static final String CLAIM = "-- purpose: test claim\nINSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at) "
            + "VALUES (?, 'TR01', ?, ?, 1, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON CONFLICT (guid) DO NOTHING";

    @TempDir
    Path dir;

    private GroupCommitDataSource ledger;
    private HikariDataSource pool;
    private String url;

    @BeforeEach
    void open() throws Exception {
        url = "jdbc:sqlite:" + dir.resolve("ledger.db") + "?journal_mode=WAL&synchronous=FULL&busy_timeout=5000";
        pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setMaximumPoolSize(4);
        pool.setConnectionTimeout(1_000);
        ledger = new GroupCommitDataSource();
        ledger.setReads(pool);
        LedgerSchema.apply(ledger, LedgerDialect.SQLITE);
    }

    @AfterEach
    void close() throws Exception {
        ledger.close();
    }

    private int claim(String guid, String state) throws SQLException {
        try (Connection c = ledger.getConnection(); PreparedStatement ps = c.prepareStatement(CLAIM)) {
            ps.setString(1, guid);
            ps.setString(2, state);
            ps.setBytes(3, new byte[] {1, 2, 3});
            ps.execute();
            return ps.getUpdateCount();
        }
    }

    private boolean committed(String guid) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement("SELECT 1 FROM tx WHERE guid = ?")) {
            ps.setString(1, guid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Test
    void concurrentClaimsEachGetTheirOwnCountAndAreCommittedWhenTheyReturn() throws Exception {
        int threads = 32;
        int guids = 400;
        CyclicBarrier together = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<int[]>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    int[] won = new int[guids];
                    for (int g = 0; g < guids; g++) {
                        String guid = String.format("G%031d", g);
                        won[g] = claim(guid, "SENT");
                        if (won[g] == 1 && !committed(guid)) {
                            throw new AssertionError(guid + " was claimed but not committed when the claim returned");
                        }
                    }
                    return won;
                }));
            }
            int[] winners = new int[guids];
            for (Future<int[]> result : results) {
                int[] won = result.get(120, TimeUnit.SECONDS);
                for (int g = 0; g < guids; g++) {
                    winners[g] += won[g];
                }
            }
            for (int g = 0; g < guids; g++) {
                assertEquals(1, winners[g], "claims that won GUID " + g);
            }
        } finally {
            pool.shutdownNow();
        }
        long[] cw = ledger.commitsAndWrites();
        assertEquals(threads * guids, cw[1], "every write went through the writer");
        assertTrue(cw[0] <= cw[1]);
        System.out.printf("group commit: %d writes in %d commits (%.1f per commit)%n", cw[1], cw[0], (double) cw[1] / cw[0]);
    }

    @Test
    void aStatementThatBreaksAConstraintFailsAloneAndTheWriterGoesOn() throws Exception {
        SQLException broken = assertThrows(SQLException.class, () -> claim("BAD0000000000000000000000000000X", "BOGUS"));
        assertTrue(broken.getMessage().contains("CHECK"), broken.getMessage());
        assertEquals(1, claim("GOOD000000000000000000000000000X", "SENT"));
        assertTrue(committed("GOOD000000000000000000000000000X"));
        assertEquals(false, committed("BAD0000000000000000000000000000X"));
    }

    @Test
    void withoutGroupCommitEveryWriteCommitsAloneOnThePool() throws Exception {
        ledger.setGroupCommit(false);
        assertEquals(1, claim("SOLO000000000000000000000000000X", "SENT"));
        assertEquals(0, claim("SOLO000000000000000000000000000X", "SENT"));
        assertTrue(committed("SOLO000000000000000000000000000X"));
        assertEquals(0, ledger.commitsAndWrites()[1]);
    }

    @Test
    void writesDoNotWaitForAPooledConnection() throws Exception {
        claim("FIRST000000000000000000000000000", "SENT"); // the writer takes its own connection
        List<Connection> taken = new ArrayList<>();
        try {
            // every other connection of the pool is held by someone else, as by slow readers
            for (int i = 1; i < pool.getMaximumPoolSize(); i++) {
                taken.add(pool.getConnection());
            }
            assertThrows(SQLException.class, () -> ledger.getConnection().prepareStatement("SELECT 1").close(),
                    "a read waits for a pooled connection and gives up");
            for (int g = 0; g < 20; g++) {
                String guid = String.format("W%031d", g);
                assertEquals(1, claim(guid, "SENT"), "a write goes through without a pooled connection");
                assertTrue(committed(guid));
            }
        } finally {
            for (Connection c : taken) {
                c.close();
            }
        }
    }

    @Test
    void aStatementThatCannotBePreparedFailsAloneAndTheWriterGoesOn() throws Exception {
        SQLException broken = assertThrows(SQLException.class, () -> {
            try (Connection c = ledger.getConnection();
                    PreparedStatement ps = c.prepareStatement("UPDATE no_such_table SET x = ? WHERE y = ?")) {
                assertEquals(2, ps.getParameterMetaData().getParameterCount());
                ps.setString(1, "a");
                ps.setString(2, "b");
                ps.executeUpdate();
            }
        });
        assertTrue(broken.getMessage().contains("no_such_table"), broken.getMessage());
        assertEquals(1, claim("AFTER000000000000000000000000000", "SENT"));
        assertTrue(committed("AFTER000000000000000000000000000"));
    }
}
