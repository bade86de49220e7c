package dev.idempotentrelay.ops;

import dev.idempotentrelay.ledger.SqlFile;
import dev.idempotentrelay.ledger.SqliteGroupCommit;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Readiness check {@code ledger}: UP when the ledger takes a write now. DOWN while SQLite's group-commit writer could not
 * commit its last group (a full disk, an I/O error), until a group commits again. Runs sql/probe-ledger-writable.sql, which
 * changes no row but needs the write lock, in a transaction that is rolled back. DOWN, with the database's
 * message, when the file is read-only, broken, gone, or its write lock stays held past the busy timeout.
 * Camel's health-check registry finds it in the bean registry.
 */
public class LedgerWritableHealthCheck extends AbstractHealthCheck {

    private final SqlFile probe = SqlFile.load("probe-ledger-writable");
    private DataSource dataSource;
    private SqliteGroupCommit groupCommit;

    public LedgerWritableHealthCheck() {
        super("relay", "ledger");
    }

    public void setDataSource(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** SQLite's group-commit writer, whose last group may have failed as a whole (a full disk); null on PostgreSQL. */
    public void setGroupCommit(SqliteGroupCommit groupCommit) {
        this.groupCommit = groupCommit;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        String failure = groupCommit == null ? null : groupCommit.failure();
        if (failure != null) {
            // the writer's last group could not be committed (a full disk, an I/O error): the claims are E902 until one can
            builder.message("the ledger cannot be written: " + failure);
            builder.down();
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate(probe.jdbc());
            } finally {
                connection.rollback();
                connection.setAutoCommit(autoCommit);
            }
            builder.up();
        } catch (SQLException | RuntimeException e) {
            builder.message("the ledger cannot be written: " + e.getMessage());
            builder.down();
        }
    }
}
