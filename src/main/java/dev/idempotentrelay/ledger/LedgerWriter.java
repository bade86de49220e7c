package dev.idempotentrelay.ledger;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.IntConsumer;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;

/**
 * Who runs the ledger's writes for the {@code ledger-write:} endpoints, once camel-sql prepared them: the group-commit
 * writer on SQLite ({@link SqliteGroupCommit}), the group-commit writer on PostgreSQL ({@link PostgresGroupCommit}), or
 * there with relay.db.postgresql.group-commit=false the bounded writer ({@link BoundedPoolWriter}).
 */
public interface LedgerWriter extends AutoCloseable {

    /**
     * Runs one write and returns its update count once it is committed and acknowledged.
     *
     * @param sql the statement with {@code ?} markers
     * @param values its parameter values, in order, as camel-sql computed them
     * @param binder the endpoint's strategy, which binds them to the prepared statement as camel-sql would
     * @throws SQLException when the write failed, or when it cannot be taken as committed
     */
    int write(String sql, List<?> values, SqlPrepareStatementStrategy binder) throws SQLException;

    /**
     * The same, with the most its caller waits for the commit, where the writer bounds the wait (PostgreSQL's
     * {@link BoundedPoolWriter}; the SQLite group-commit writer has no such bound and runs it as {@link #write}): the
     * timed work's batches, whose caller is no channel, wait longer than a claim.
     *
     * @param commitWaitMs the most the caller waits for the commit, in milliseconds
     */
    default int write(String sql, List<?> values, SqlPrepareStatementStrategy binder, long commitWaitMs) throws SQLException {
        return write(sql, values, binder);
    }

    /**
     * The same, naming the GUID whose row the write changes and the statement that runs a group of such writes at once,
     * where the writer groups them and orders a group's row locks by GUID ({@link PostgresGroupCommit}); the others run
     * it as {@link #write}.
     *
     * @param guid the value of the statement's {@code :#guid}, or null when it has none
     * @param groupSql the group's statement with {@code ?} markers: the same parameters in the same order, each an
     *     array of the group's values, returning the GUIDs it changed; or null, when the writes run one by one
     */
    default int write(String sql, List<?> values, SqlPrepareStatementStrategy binder, String guid, String groupSql) throws SQLException {
        return write(sql, values, binder);
    }

    /** Where a writer that commits groups reports the size of each ({@code relay_ledger_group_size}); the others have none. */
    default void reportGroupSizes(IntConsumer sizes) {
    }

    @Override
    void close() throws SQLException;

    /**
     * What a caller throws when the write it waited for failed on the writer's thread: a new exception, so that the
     * caller's stack is in it, with the database's message, SQLSTATE and code kept.
     */
    static SQLException failureOf(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof SQLException failure) {
            return new SQLException(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
        }
        return new SQLException("ledger write failed: " + cause, cause);
    }
}
