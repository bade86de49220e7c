package dev.idempotentrelay.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLWarning;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;
import org.postgresql.util.PSQLWarning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL ledger's writes (SPEC section 9): each committed alone on a connection of the pool, on a thread of
 * this writer's, while its caller waits at most {@code boundMs} ({@code relay.db.connect-wait-ms}, the bound of a
 * connection too), or what its endpoint says ({@code commitWaitMs}: the timed work's batches, which may take seconds
 * on a large ledger and have no channel waiting, wait {@code relay.jobs.commit-wait-ms}). A claim whose commit does not complete in time (it waits for a synchronous standby that is gone,
 * or for a server that no longer answers) is answered within the bound: the caller gets an {@link SQLTimeoutException},
 * the channel E902, and the core is not called.
 * <p>
 * The statement is never cancelled: PostgreSQL, asked to cancel a commit that waits for a synchronous standby, stops
 * the wait and keeps the commit, committed on the primary and perhaps not on the standby. So a caller that stops
 * waiting leaves its statement to finish on the writer's thread; the outcome is logged and discarded. What becomes of
 * such a row: it may be SENT without a core call; the resolve job settles it as any SENT row a relay left.
 * <p>
 * A commit that comes back with a warning (SQLSTATE class 01) is not taken as acknowledged: the caller gets an
 * {@link SQLException}, as for a failed write. That is how PostgreSQL reports a wait for synchronous replication that
 * someone cancelled ("canceling wait for synchronous replication due to user request", the transaction "committed
 * locally, but might not have been replicated to the standby"). A connection lost during the commit fails the write
 * too (its outcome is unknown): in neither case is the core called.
 */
public final class BoundedPoolWriter implements LedgerWriter {

    private static final Logger LOG = LoggerFactory.getLogger(BoundedPoolWriter.class);

    /** SQLSTATE class 01: a warning. A notice (class 00) is not one. */
    private static final String WARNING_CLASS = "01";

    private final DataSource pool;
    private final long boundMs;
    private final ExecutorService threads;

    public BoundedPoolWriter(DataSource pool, long boundMs) {
        this.pool = pool;
        this.boundMs = boundMs;
        AtomicInteger count = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "ledger-commit-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder) throws SQLException {
        return write(sql, values, binder, boundMs);
    }

    /** The write, its caller waiting at most {@code commitWaitMs} rather than the bound (a batch of the timed work). */
    @Override
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder, long commitWaitMs) throws SQLException {
        long start = System.nanoTime();
        CompletableFuture<Integer> commit = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                try {
                    commit.complete(commit(sql, values, binder));
                } catch (Throwable e) {
                    commit.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new SQLException("the ledger writer is stopped");
        }
        try {
            return commit.get(commitWaitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            commit.whenComplete((count, failure) -> logLate(start, commitWaitMs, count, failure));
            throw new SQLTimeoutException("the ledger's commit did not complete within " + commitWaitMs
                    + " ms (left to finish, not cancelled)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the ledger's commit", e);
        } catch (ExecutionException e) {
            throw LedgerWriter.failureOf(e);
        }
    }

    /** The write on a connection of the pool, in autocommit: its update count, once its commit came back plainly. */
    private int commit(String sql, List<?> values, SqlPrepareStatementStrategy binder) throws SQLException {
        try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            binder.populateStatement(statement, values.iterator(), values.size());
            int count = statement.executeUpdate();
            requireNoWarning(statement.getWarnings());
            return count;
        }
    }

    /** Throws when the commit came back with a warning: it is then not acknowledged (see the class comment). */
    static void requireNoWarning(SQLWarning warnings) throws SQLException {
        for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
            String state = warning.getSQLState();
            if (state != null && state.startsWith(WARNING_CLASS)) {
                String detail = warning instanceof PSQLWarning server && server.getServerErrorMessage().getDetail() != null
                        ? " (" + server.getServerErrorMessage().getDetail() + ")" : "";
                throw new SQLException("the ledger's commit came back with a warning, so it is not taken as acknowledged: "
                        + warning.getMessage() + detail, state, warning);
            }
        }
    }

    /** The outcome of a write whose caller stopped waiting: logged, since its row may be in the ledger without a core call. */
    static void logLate(long start, long waitedMs, Integer count, Throwable failure) {
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (failure == null) {
            LOG.info("a ledger write given up after {} ms completed {} ms after it began ({} row(s)); its caller had been answered, "
                    + "and for a claim the core was not called", waitedMs, ms, count);
        } else {
            LOG.info("a ledger write given up after {} ms failed {} ms after it began: {}", waitedMs, ms, failure.getMessage());
        }
    }

    @Override
    public void close() {
        // statements still running finish on their own (daemon threads); nothing new is taken
        threads.shutdown();
    }
}
