package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.jdbc4.JDBC4PreparedStatement;

/**
 * The ledger's statements kept by their connection, on a real SQLite file in WAL mode behind a real Hikari pool, as
 * the relay runs it: a statement closed is handed out again for the same SQL, with its own parameters each time; two
 * open at once are two; one that failed is not handed out again; and a kept statement holds no read of the ledger
 * open, so that the WAL can still be checkpointed and started over.
 */
class ReusedStatementsTest {

    private static final String FIND = "SELECT state FROM t WHERE guid = ?";

    @TempDir
    Path dir;

    private HikariDataSource pool;

    @BeforeEach
    void open() throws SQLException {
        pool = new HikariDataSource();
        pool.setDataSource(new ReusedStatements("jdbc:sqlite:" + dir.resolve("ledger.db") + "?journal_mode=WAL&synchronous=FULL&busy_timeout=5000"));
        pool.setMaximumPoolSize(1);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE t (guid TEXT PRIMARY KEY, state TEXT NOT NULL)");
            s.executeUpdate("INSERT INTO t VALUES ('A', 'DONE'), ('B', 'SENT')");
        }
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aClosedStatementIsHandedOutAgainForTheSameSqlAndReadsWithItsOwnParameters() throws SQLException {
        try (Connection c = pool.getConnection()) {
            Object first;
            try (PreparedStatement ps = c.prepareStatement(FIND)) {
                first = ps.unwrap(JDBC4PreparedStatement.class);
                assertEquals("DONE", state(ps, "A"));
            }
            try (PreparedStatement ps = c.prepareStatement(FIND)) {
                assertSame(first, ps.unwrap(JDBC4PreparedStatement.class), "the statement prepared before, not a new one");
                assertEquals("SENT", state(ps, "B"));
            }
            try (PreparedStatement ps = c.prepareStatement(FIND)) {
                // no parameter left over from the last use: unbound, the GUID is NULL and matches no row
                try (ResultSet rs = ps.executeQuery()) {
                    assertFalse(rs.next());
                }
            }
        }
        // the connection back in the pool and out again: its statements still kept
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(FIND)) {
            assertEquals("DONE", state(ps, "A"));
        }
    }

    @Test
    void twoStatementsOpenAtOnceForTheSameSqlAreTwo() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement one = c.prepareStatement(FIND);
                PreparedStatement two = c.prepareStatement(FIND)) {
            assertNotSame(one.unwrap(JDBC4PreparedStatement.class), two.unwrap(JDBC4PreparedStatement.class));
            assertEquals("DONE", state(one, "A"));
            assertEquals("SENT", state(two, "B"));
        }
    }

    @Test
    void aStatementClosedIsClosedToItsUserAndAFailedOneIsNotHandedOutAgain() throws SQLException {
        String insert = "INSERT INTO t VALUES (?, 'SENT')";
        try (Connection c = pool.getConnection()) {
            PreparedStatement ps = c.prepareStatement(insert);
            Object failed = ps.unwrap(JDBC4PreparedStatement.class);
            ps.setString(1, "A");
            assertThrows(SQLException.class, ps::executeUpdate, "A is there already");
            ps.close();
            assertTrue(ps.isClosed());
            assertThrows(SQLException.class, () -> ps.setString(1, "C"), "a closed statement is closed to its user");
            try (PreparedStatement again = c.prepareStatement(insert)) {
                assertNotSame(failed, again.unwrap(JDBC4PreparedStatement.class));
                again.setString(1, "C");
                assertEquals(1, again.executeUpdate());
            }
        }
    }

    @Test
    void aKeptStatementHoldsNoReadOpenSoTheWalIsCheckpointedAndStartsOver() throws Exception {
        Path wal = dir.resolve("ledger.db-wal");
        try (Connection reader = pool.getConnection()) {
            // one read closed with its result set, one whose user closed only the statement
            try (PreparedStatement ps = reader.prepareStatement(FIND)) {
                assertEquals("DONE", state(ps, "A"));
            }
            PreparedStatement ps = reader.prepareStatement(FIND);
            ps.setString(1, "B");
            ResultSet rs = ps.executeQuery();
            assertTrue(rs.next());
            ps.close();
            // another connection, outside the pool that holds the reader's: were a read still open, a TRUNCATE
            // checkpoint could not reset the WAL (busy 1)
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("ledger.db") + "?busy_timeout=5000");
                    Statement s = other.createStatement()) {
                s.executeUpdate("INSERT INTO t VALUES ('C', 'SENT')");
                assertTrue(Files.size(wal) > 0);
                try (ResultSet checkpoint = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                    assertTrue(checkpoint.next());
                    assertEquals(0, checkpoint.getInt(1), "busy: a read still open");
                }
            }
            assertEquals(0, Files.size(wal), "the WAL started over");
        }
    }

    private static String state(PreparedStatement ps, String guid) throws SQLException {
        ps.setString(1, guid);
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next(), guid);
            return rs.getString(1);
        }
    }
}
