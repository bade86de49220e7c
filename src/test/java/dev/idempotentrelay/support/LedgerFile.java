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

/** Reads the relay's SQLite ledger file directly, as an operator would. */
public final class LedgerFile {

    private final String url;

    public LedgerFile(Path file) {
        this.url = "jdbc:sqlite:" + file;
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
