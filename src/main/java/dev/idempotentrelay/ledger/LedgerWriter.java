package dev.idempotentrelay.ledger;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: one thread owns the ledger's write connection and commits the writes of concurrent
 * exchanges together, one transaction (so one fsync) for all the writes that queued up while the
 * previous commit was on its way to disk. Each write still runs as its own statement with its own
 * update count, and its caller gets the count only once the transaction holding it is committed: a
 * claim is on disk before the core is called, exactly as with one commit per statement.
 */
final class LedgerWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerWriter.class);

    /** One parameter-setting call on a prepared statement, replayed on the writer's statement. */
    record Binding(Method setter, Object[] args) {
    }

    private record Write(String sql, List<Binding> bindings, CompletableFuture<Integer> result) {
    }

    private static final Write STOP = new Write(null, null, null);

    private final Connection connection;
    private final int maxBatch;
    private final BlockingQueue<Write> queue = new LinkedBlockingQueue<>();
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private final Thread thread;
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();

    LedgerWriter(Connection connection, int maxBatch) throws SQLException {
        this.connection = connection;
        this.maxBatch = maxBatch;
        connection.setAutoCommit(false);
        this.thread = new Thread(this::loop, "ledger-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs one write in the next group commit and returns its update count once committed. */
    int write(String sql, List<Binding> bindings) throws SQLException {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        if (!thread.isAlive()) {
            throw new SQLException("the ledger writer is stopped");
        }
        queue.add(new Write(sql, bindings, result));
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the ledger commit", e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException failure) {
                throw new SQLException(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
            }
            throw new SQLException("ledger write failed: " + cause, cause);
        }
    }

    long commits() {
        return commits.get();
    }

    long writes() {
        return writes.get();
    }

    private void loop() {
        List<Write> batch = new ArrayList<>(maxBatch);
        while (true) {
            batch.clear();
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch, maxBatch - 1);
            boolean stop = batch.remove(STOP);
            if (!batch.isEmpty()) {
                commit(batch);
            }
            if (stop) {
                for (Write left; (left = queue.poll()) != null; ) {
                    if (left != STOP) {
                        left.result().completeExceptionally(new SQLException("the ledger writer is stopped"));
                    }
                }
                return;
            }
        }
    }

    private void commit(List<Write> batch) {
        int[] counts = new int[batch.size()];
        SQLException[] failures = new SQLException[batch.size()];
        try {
            for (int i = 0; i < batch.size(); i++) {
                Write write = batch.get(i);
                PreparedStatement statement;
                try {
                    statement = prepared(write);
                } catch (SQLException e) {
                    failures[i] = e; // a statement that cannot be prepared or bound changed nothing
                    continue;
                }
                try {
                    counts[i] = statement.executeUpdate();
                } catch (SQLException e) {
                    if (!statementOnly(e)) {
                        throw e;
                    }
                    failures[i] = e; // the statement failed alone (a constraint); the transaction goes on
                }
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            rollback();
            SQLException failure = e instanceof SQLException sql ? sql : new SQLException(e.toString(), e);
            LOG.error("ledger commit of {} writes failed: {}", batch.size(), failure.getMessage());
            for (Write write : batch) {
                write.result().completeExceptionally(failure);
            }
            return;
        }
        commits.incrementAndGet();
        writes.addAndGet(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            if (failures[i] != null) {
                batch.get(i).result().completeExceptionally(failures[i]);
            } else {
                batch.get(i).result().complete(counts[i]);
            }
        }
    }

    /** The writer's prepared statement for this write's SQL (prepared once, then reused), bound to its parameters. */
    private PreparedStatement prepared(Write write) throws SQLException {
        PreparedStatement statement = statements.get(write.sql());
        if (statement == null) {
            statement = connection.prepareStatement(write.sql());
            statements.put(write.sql(), statement);
        }
        statement.clearParameters();
        for (Binding binding : write.bindings()) {
            try {
                binding.setter().invoke(statement, binding.args());
            } catch (IllegalAccessException e) {
                throw new SQLException(e);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause());
            }
        }
        return statement;
    }

    /** SQLite's constraint errors (extended codes 19 + n * 256) fail one statement and leave the transaction. */
    private static boolean statementOnly(SQLException e) {
        return (e.getErrorCode() & 0xff) == 19;
    }

    private void rollback() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            LOG.error("ledger rollback failed: {}", e.getMessage());
        }
    }

    @Override
    public void close() throws SQLException {
        queue.add(STOP);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PreparedStatement statement : statements.values()) {
            statement.close();
        }
        connection.close();
        if (commits.get() > 0) {
            LOG.info("ledger writer stopped: {} writes in {} commits ({} per commit)", writes.get(), commits.get(),
                    String.format("%.1f", (double) writes.get() / commits.get()));
        }
    }
}
