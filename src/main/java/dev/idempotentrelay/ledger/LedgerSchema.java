package dev.idempotentrelay.ledger;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Applies the dialect's schema file (from the classpath: {@code schema.sql} for SQLite, {@code schema-postgresql.sql})
 * to the ledger: statement by statement, harmless twice. On PostgreSQL all of it runs in one transaction that first
 * takes a transaction-scoped advisory lock, so that relays starting at the same moment on an empty database apply it
 * one after the other ({@code CREATE TABLE IF NOT EXISTS} alone races there: duplicate key in pg_type). With the
 * job store (relay.jobs.clustered), Quartz's tables ({@code schema-quartz-postgresql.sql}) follow in the same
 * transaction. On SQLite, one transaction too; an {@code ALTER TABLE ... ADD COLUMN} of a column the ledger has
 * already is passed over (SQLite has no {@code IF NOT EXISTS} there).
 */
public final class LedgerSchema {

    private static final Pattern TRIGGER = Pattern.compile("(?i)CREATE\\s+TRIGGER\\b");
    private static final Pattern ADD_COLUMN = Pattern.compile("(?i)ALTER\\s+TABLE\\s+\\w+\\s+ADD\\s+COLUMN\\b");

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
                // one transaction, begun and ended by statements as the group-commit writer does: a trigger replaced by
                // the file is never missing for a write of a relay running on the same file meanwhile
                statement.execute(SqliteGroupCommit.BEGIN);
                try {
                    for (String sql : statements) {
                        try {
                            statement.execute(sql);
                        } catch (SQLException e) {
                            // SQLite has no ADD COLUMN IF NOT EXISTS: on a ledger that has the column, the ALTER is done
                            // already (a failed statement leaves the transaction open, the others' work in it)
                            if (!(ADD_COLUMN.matcher(sql).lookingAt() && String.valueOf(e.getMessage()).contains("duplicate column name"))) {
                                throw e;
                            }
                        }
                    }
                    statement.execute(SqliteGroupCommit.COMMIT);
                } catch (SQLException e) {
                    try {
                        statement.execute(SqliteGroupCommit.ROLLBACK);
                    } catch (SQLException rollback) {
                        e.addSuppressed(rollback);
                    }
                    throw e;
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

    /**
     * The statements of a schema file, split at its semicolons, but for those inside a statement: in a SQLite trigger's
     * body ({@code CREATE TRIGGER ... BEGIN ...; END}) and in a PostgreSQL function's body between {@code $$} quotes.
     */
    public static List<String> statements(String resource) throws IOException {
        List<String> statements = new ArrayList<>();
        StringBuilder statement = new StringBuilder();
        for (String part : SqlFile.code(resource).split(";")) {
            statement.append(part);
            String sql = statement.toString().strip();
            boolean open = TRIGGER.matcher(sql).lookingAt() && !sql.toUpperCase(Locale.ROOT).endsWith("END")
                    || (sql.split("\\$\\$", -1).length - 1) % 2 == 1;
            if (open) {
                statement.append(';');
                continue;
            }
            if (!sql.isEmpty()) {
                statements.add(sql);
            }
            statement.setLength(0);
        }
        return statements;
    }
}
