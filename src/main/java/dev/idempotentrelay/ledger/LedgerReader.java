package dev.idempotentrelay.ledger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Reads a ledger directly, read-only (a SQLite file, or a PostgreSQL database by {@link #openDatabase}), whether a relay is writing it or not: SQLite in WAL mode lets a
 * reader see the last committed state while a writer works, and a busy timeout waits out a checkpoint. Runs
 * the same named SQL files as the admin routes.
 *
 * <p>It needs no write permission on the file or its folder. A reader of a WAL-mode ledger shares the wal-index,
 * the {@code -shm} file beside it: while a relay has the ledger open, that file and the {@code -wal} exist, and a
 * read-only connection uses them even when it may not write them (SQLite 3.22 and later then read the WAL into
 * memory), so it sees every transaction the relay committed. When the ledger is closed its {@code -wal} and
 * {@code -shm} are gone; in a folder the reader may not write, SQLite cannot create the {@code -shm} and refuses a
 * read-only open (SQLITE_READONLY_DIRECTORY). Only then, and only when no {@code -wal} file exists (so every
 * committed transaction is in the main file, and no relay has the ledger open), is it opened {@code immutable=1}:
 * no locks, no {@code -shm}, the main file alone. That would be wrong for a ledger a relay is writing (its latest
 * transactions are in the {@code -wal} until a checkpoint, which immutable reads ignore), hence the last resort.
 */
public final class LedgerReader implements AutoCloseable {

    public static final int BUSY_TIMEOUT_MS = 5000;
    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;

    private final Connection connection;

    private LedgerReader(Connection connection) {
        this.connection = connection;
    }

    /**
     * A PostgreSQL ledger (a {@code jdbc:postgresql:} URL), read-only, as {@code user} (or the URL's user=) with
     * {@code password} (null: the URL's password=, if any).
     */
    public static LedgerReader openDatabase(String url, String user, String password) throws SQLException {
        java.util.Properties login = new java.util.Properties();
        if (user != null && !user.isBlank()) {
            login.setProperty("user", user);
        }
        if (password != null) {
            login.setProperty("password", password);
        }
        login.setProperty("connectTimeout", "5");
        login.setProperty("readOnly", "true");
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setURL(url);
        for (String name : login.stringPropertyNames()) {
            database.setProperty(name, login.getProperty(name));
        }
        return checked(database, LedgerDialect.POSTGRESQL);
    }

    public static LedgerReader open(Path db) throws SQLException {
        try {
            return open(db, false);
        } catch (SQLException e) {
            if (!cannotCreateSharedMemory(e) || Files.exists(Path.of(db + "-wal"))) {
                throw e;
            }
            return open(db, true);
        }
    }

    /** Whether the ledger's lock was held by another process past the busy timeout. */
    public static boolean isBusy(SQLException e) {
        int code = e instanceof SQLiteException sqlite ? sqlite.getResultCode().code & 0xff : e.getErrorCode();
        return code == SQLITE_BUSY || code == SQLITE_LOCKED;
    }

    /** A read-only open refused because the -shm file could not be created (nor opened) beside the ledger. */
    private static boolean cannotCreateSharedMemory(SQLException e) {
        if (!(e instanceof SQLiteException sqlite)) {
            return false;
        }
        SQLiteErrorCode code = sqlite.getResultCode();
        return code == SQLiteErrorCode.SQLITE_READONLY_DIRECTORY || code == SQLiteErrorCode.SQLITE_READONLY_CANTINIT
                || code == SQLiteErrorCode.SQLITE_CANTOPEN;
    }

    private static LedgerReader open(Path db, boolean immutable) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        // a file: URI, so that a path with spaces or '?' stays a path and immutable=1 reaches SQLite
        SQLiteDataSource file = new SQLiteDataSource(config);
        file.setUrl("jdbc:sqlite:" + db.toAbsolutePath().toUri() + (immutable ? "?immutable=1" : ""));
        return checked(file, LedgerDialect.SQLITE);
    }

    /**
     * Fails now, with a clear message, on a database that holds no ledger: one GUID looked up in the index, which costs
     * the same on a ledger of millions of rows as on an empty one (a count of every row took a second there); and on a
     * ledger at a version this build does not run on ({@link LedgerMigrations#requireCurrent}).
     */
    private static LedgerReader checked(DataSource ledger, LedgerDialect dialect) throws SQLException {
        Connection connection = ledger.getConnection();
        try {
            new LedgerReader(connection).row("");
            // a ledger that this build's statements do not fit is refused as the relay refuses it, by its version
            new LedgerMigrations(ledger, dialect).requireCurrent();
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return new LedgerReader(connection);
    }

    /** The row of a GUID (sql/find-ledger-row.sql), or null. */
    public Map<String, Object> row(String guid) throws SQLException {
        List<Map<String, Object>> rows = query(SqlFile.load("find-ledger-row"), Map.of("guid", guid));
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** A GUID's history, oldest first (sql/find-guid-history.sql); empty when it has none. */
    public List<Map<String, Object>> history(String guid) throws SQLException {
        return query(SqlFile.load("find-guid-history"), Map.of("guid", guid));
    }

    /** Rows in a state, least recently changed first (sql/list-ledger-rows.sql). */
    public List<Map<String, Object>> list(String state, int limit) throws SQLException {
        return query(SqlFile.load("list-ledger-rows"), Map.of("state", state, "limit", limit));
    }

    /** Rows per state with the oldest updated_at of each (sql/count-rows-by-state.sql); states without rows are absent. */
    public List<Map<String, Object>> countByState() throws SQLException {
        return query(SqlFile.load("count-rows-by-state"), Map.of());
    }

    private List<Map<String, Object>> query(SqlFile sql, Map<String, Object> values) throws SQLException {
        try (PreparedStatement ps = sql.prepare(connection, values); ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData meta = rs.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int c = 1; c <= meta.getColumnCount(); c++) {
                    row.put(meta.getColumnLabel(c), rs.getObject(c));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
