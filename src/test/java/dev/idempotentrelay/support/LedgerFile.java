package dev.idempotentrelay.support;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the relay's ledger directly, as an operator would: a SQLite file, or (by {@link #at}) any JDBC URL, such as a
 * PostgreSQL ledger's. {@link #row} and {@link #guids} are plain SQL; {@link #insert} and {@link #age} write SQLite's.
 */
public final class LedgerFile {

    private final String url;

    public LedgerFile(Path file) {
        this("jdbc:sqlite:" + file);
    }

    private LedgerFile(String url) {
        this.url = url;
    }

    /** The ledger at a JDBC URL. */
    public static LedgerFile at(String jdbcUrl) {
        return new LedgerFile(jdbcUrl);
    }

    /**
     * The ledger {@code db} (a SQLite file or a jdbc:postgresql URL) brought to this build's version by its migrations,
     * as {@code idempotent-relay migrate} does: what a PostgreSQL ledger needs before a relay runs on it.
     */
    public static LedgerFile migrated(String db) throws Exception {
        dev.idempotentrelay.ledger.LedgerDialect dialect = dev.idempotentrelay.ledger.LedgerDialect.of(db);
        javax.sql.DataSource ledger;
        if (dialect == dev.idempotentrelay.ledger.LedgerDialect.POSTGRESQL) {
            org.postgresql.ds.PGSimpleDataSource database = new org.postgresql.ds.PGSimpleDataSource();
            database.setURL(db);
            ledger = database;
        } else {
            org.sqlite.SQLiteDataSource file = new org.sqlite.SQLiteDataSource();
            file.setUrl("jdbc:sqlite:" + db + "?journal_mode=WAL&busy_timeout=5000");
            ledger = file;
        }
        new dev.idempotentrelay.ledger.LedgerMigrations(ledger, dialect, 1_000, 10).migrate(line -> { });
        return dialect == dev.idempotentrelay.ledger.LedgerDialect.POSTGRESQL ? at(db) : new LedgerFile(Path.of(db));
    }

    /** The row of a GUID as column -> value, or null when there is none. */
    public Map<String, Object> row(String guid) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("SELECT * FROM tx WHERE guid = ?")) {
            ps.setString(1, guid);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                ResultSetMetaData meta = rs.getMetaData();
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnName(i), rs.getObject(i));
                }
                return row;
            }
        }
    }

    /** Writes a row as a relay would have left it; {@code ageSeconds} sets updated_at that far in the past. */
    public void insert(String guid, String state, String rspCode, byte[] request, byte[] response, int attempts,
            long ageSeconds) throws SQLException {
        String at = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).minusSeconds(ageSeconds)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("INSERT INTO tx (guid, tx_code, state, rsp_code, request, "
                        + "response, attempts, created_at, updated_at) VALUES (?, 'TR01', ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, guid);
            ps.setString(2, state);
            ps.setString(3, rspCode);
            ps.setBytes(4, request);
            ps.setBytes(5, response);
            ps.setInt(6, attempts);
            ps.setString(7, at);
            ps.setString(8, at);
            ps.executeUpdate();
        }
    }

    /**
     * Writes {@code n} rows in one transaction, as a relay would have left them, each {@code ageSeconds} old: GUIDs
     * {@code prefix} followed by a number, 32 characters in all.
     */
    public void fill(String prefix, int n, String state, String rspCode, long ageSeconds) throws SQLException {
        String at = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).minusSeconds(ageSeconds)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO tx (guid, tx_code, state, rsp_code, request, "
                    + "response, attempts, created_at, updated_at) VALUES (?, 'TR01', ?, ?, ?, ?, 1, ?, ?)")) {
                for (int i = 0; i < n; i++) {
                    String guid = prefix + String.format("%0" + (32 - prefix.length()) + "d", i);
                    ps.setString(1, guid);
                    ps.setString(2, state);
                    ps.setString(3, rspCode);
                    ps.setBytes(4, Requests.transfer(guid));
                    ps.setBytes(5, "DONE".equals(state) ? new byte[] {'x'} : null);
                    ps.setString(6, at);
                    ps.setString(7, at);
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    /** Moves a row's updated_at {@code seconds} into the past on either ledger (the time written as the relay writes it). */
    public void backdate(String guid, long seconds) throws SQLException {
        String at = queryString("SELECT updated_at FROM tx WHERE guid = '" + guid + "'");
        java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
        String earlier = java.time.LocalDateTime.parse(at, format).minusSeconds(seconds).format(format);
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("UPDATE tx SET updated_at = ? WHERE guid = ?")) {
            ps.setString(1, earlier);
            ps.setString(2, guid);
            if (ps.executeUpdate() != 1) {
                throw new SQLException("no row " + guid);
            }
        }
    }

    /** Moves a row's updated_at {@code seconds} into the past, as time passing would. */
    public void age(String guid, long seconds) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE tx SET updated_at = datetime(updated_at, ?) WHERE guid = ?")) {
            ps.setString(1, "-" + seconds + " seconds");
            ps.setString(2, guid);
            if (ps.executeUpdate() != 1) {
                throw new SQLException("no row " + guid);
            }
        }
    }

    /** The GUIDs of the rows matching a WHERE condition. */
    public java.util.List<String> guids(String where) throws SQLException {
        java.util.List<String> guids = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("SELECT guid FROM tx WHERE " + where);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                guids.add(rs.getString(1));
            }
        }
        return guids;
    }

    /** The first column of every row a query returns, as text. */
    public java.util.List<String> strings(String sql) throws SQLException {
        java.util.List<String> values = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    public long count() throws SQLException {
        return queryLong("SELECT COUNT(*) FROM tx");
    }

    public long queryLong(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public String queryString(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    public void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }
}
