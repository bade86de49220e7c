package dev.idempotentrelay.ledger;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Applies the dialect's schema file (from the classpath: {@code schema.sql} for SQLite, {@code schema-postgresql.sql})
 * to the ledger: statement by statement, harmless twice. On PostgreSQL all of it runs in one transaction that first
 * takes a transaction-scoped advisory lock, so that relays starting at the same moment on an empty database apply it
 * one after the other ({@code CREATE TABLE IF NOT EXISTS} alone races there: duplicate key in pg_type). With the
 * job store (relay.jobs.clustered), Quartz's tables ({@code schema-quartz-postgresql.sql}) follow in the same
 * transaction.
 */
public final class LedgerSchema {

    /** The advisory lock of the schema: any number, the same in every relay. */
    private static final long SCHEMA_LOCK = 0x1d3e_7e1a_7L;

    private LedgerSchema() {
    }

    public static void apply(DataSource ledger, LedgerDialect dialect) throws SQLException, IOException {
        apply(ledger, dialect, false);
    }

    /** The ledger's schema and, when {@code withJobStore}, the tables of the dialect's Quartz job store after it. */
    public static void apply(DataSource ledger, LedgerDialect dialect, boolean withJobStore) throws SQLException, IOException {
        List<String> statements = new ArrayList<>(statements(dialect.schema()));
        if (withJobStore) {
            if (dialect.jobStoreSchema() == null) {
                throw new IllegalArgumentException("a " + dialect + " ledger has no Quartz job store");
            }
            statements.addAll(statements(dialect.jobStoreSchema()));
        }
        try (Connection connection = ledger.getConnection(); Statement statement = connection.createStatement()) {
            if (dialect != LedgerDialect.POSTGRESQL) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
                return;
            }
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                statement.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK + ")");
                for (String sql : statements) {
                    statement.execute(sql);
                }
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    static List<String> statements(String resource) throws IOException {
        List<String> statements = new ArrayList<>();
        for (String sql : SqlFile.code(resource).split(";")) {
            if (!sql.isBlank()) {
                statements.add(sql.strip());
            }
        }
        return statements;
    }
}
