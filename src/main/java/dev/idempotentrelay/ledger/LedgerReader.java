package dev.idempotentrelay.ledger;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;

/**
 * Reads a ledger file directly, read-only, whether a relay is writing it or not: SQLite in WAL mode lets a
 * reader see the last committed state while a writer works, and a busy timeout waits out a checkpoint. Runs
 * the same named SQL files as the admin routes.
 */
public final class LedgerReader implements AutoCloseable {

    public static final int BUSY_TIMEOUT_MS = 5000;

    private final Connection connection;

    private LedgerReader(Connection connection) {
        this.connection = connection;
    }

    public static LedgerReader open(Path db) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        Connection connection = DriverManager.getConnection("jdbc:sqlite:" + db, config.toProperties());
        try {
            // fails now, with a clear message, on a file that is not a ledger
            new LedgerReader(connection).query(SqlFile.load("count-rows-by-state"), Map.of());
        } catch (SQLException e) {
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

    /** Rows in a state, least recently changed first (sql/list-ledger-rows.sql). */
    public List<Map<String, Object>> list(String state, int limit) throws SQLException {
        return query(SqlFile.load("list-ledger-rows"), Map.of("state", state, "limit", limit));
    }

    /** Rows per state with the oldest updated_at of each (sql/count-rows-by-state.sql); states without rows are absent. */
    public List<Map<String, Object>> countByState() throws SQLException {
        return query(SqlFile.load("count-rows-by-state"), Map.of());
    }

    private List<Map<String, Object>> query(SqlFile sql, Map<String, Object> values) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql.jdbc())) {
            for (int i = 0; i < sql.parameters().size(); i++) {
                ps.setObject(i + 1, values.get(sql.parameters().get(i)));
            }
            try (ResultSet rs = ps.executeQuery()) {
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
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
