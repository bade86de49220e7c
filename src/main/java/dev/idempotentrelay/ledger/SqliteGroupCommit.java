package dev.idempotentrelay.ledger;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import javax.sql.DataSource;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;
import org.sqlite.SQLiteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of the SQLite ledger's writes: one thread, on one connection taken from the pool, runs the writes
 * that concurrent exchanges queued while the previous commit was on its way to disk, in one transaction, so one
 * fsync for all of them. A write that fails (any statement error: a constraint, a missing table, a value the SQL
 * refuses) fails its caller alone: the transaction is rolled back, and the group's other writes run again in a new
 * one, in their order (none of them was answered yet, so none was seen). The others commit. A savepoint per write
 * would do the same, at two more statements per write on this one thread every time; a failed write is rare.
 * A caller gets its update count only once the transaction holding its write is
 * committed: a claim is on disk before the core is called, exactly as with one commit per statement.
 * <p>
 * What fails the whole group is what leaves none of it on disk: the commit itself, an error of the database rather than
 * of one statement (a full disk, an I/O error, a lock held past the busy timeout: SQLite may roll the whole transaction
 * back by itself then), or a connection that cannot roll back (closed, broken). Every caller of the group is then told
 * its write failed, and none of those writes runs again: run again after SQLite had ended the transaction, each would
 * have been committed on its own, durable while its caller was told it failed. The transactions are begun and ended by
 * statements of the writer's own ({@code BEGIN IMMEDIATE}, {@code COMMIT}, {@code ROLLBACK}), so no driver state can
 * disagree with SQLite's. The writer then gives that connection up and takes a new one from the pool for the next
 * group.
 * <p>
 * Checkpoints (the WAL copied back into the ledger file) stay off the commit path. SQLite's automatic one, which
 * runs inside the commit that fills the WAL past its limit, is off on the writer's connection: there every caller of
 * that group, and every caller queued behind it, waited for the copy and for the ledger file's fsync (some 4 ms
 * more on the relay's p99 under load, BENCHMARKS.md), and the writer, which every write waits for, spent a fifth of its time on
 * it. Every {@code checkpointWrites} rows written (a claim one, a purge's batch as many as it deletes) a
 * {@link BackgroundCheckpoint} copies the WAL while the writer goes on
 * committing; once it is done, the writer copies the few frames committed meanwhile itself, after the answers of its
 * group, so that SQLite can start the WAL over.
 * <p>
 * PostgreSQL has a writer of its own ({@link PostgresGroupCommit}).
 * <p>
 * What it is worth: with {@code relay.db.group-commit=false} (camel-sql commits every write alone) new transfers at 32
 * connections ran at 0.27x the throughput with this writer, at 2.7x the relay's CPU per reply (six alternating rounds,
 * 2026-12-07; scripts/ledger/bench-pieces.sh, docs/performance.md#the-ledgers-own-pieces).
 */
public final class SqliteGroupCommit implements LedgerWriter {

    private static final Logger LOG = LoggerFactory.getLogger(SqliteGroupCommit.class);

    /** A write as camel-sql prepared it: the JDBC statement, its parameter values, and camel-sql's way to bind them. */
    private record Write(String sql, List<?> values, SqlPrepareStatementStrategy binder, CompletableFuture<Integer> result) {
    }

    private static final Write STOP = new Write(null, null, null, null);

    /** The writer's transactions, begun and ended by these statements on a connection in auto-commit mode: the driver
     * then keeps no transaction state of its own that could differ from SQLite's after an error. IMMEDIATE takes the
     * write lock at once (waiting out another process's write up to the busy timeout). */
    static final String BEGIN = "BEGIN IMMEDIATE";
    static final String COMMIT = "COMMIT";
    static final String ROLLBACK = "ROLLBACK";

    private final DataSource pool;
    private final int maxGroup;
    private final int checkpointWrites;
    private final BlockingQueue<Write> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong checkpoints = new AtomicLong();
    private final BackgroundCheckpoint background;
    private volatile IntConsumer groupSizes = size -> { };
    private boolean stopped; // guarded by queue: nothing is queued after STOP

    // the writer thread's own
    private Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private int writesSinceCheckpoint;

    /**
     * Starts the writer thread; it takes its connection from {@code pool} at the first write.
     *
     * @param maxGroup the most writes in one transaction
     * @param checkpointWrites rows written between two checkpoints of the WAL into the ledger file
     */
    public SqliteGroupCommit(DataSource pool, int maxGroup, int checkpointWrites) {
        if (checkpointWrites < 1) {
            throw new IllegalArgumentException("writes between checkpoints must be at least 1, not " + checkpointWrites);
        }
        this.pool = pool;
        this.maxGroup = maxGroup;
        this.checkpointWrites = checkpointWrites;
        this.background = new BackgroundCheckpoint(pool);
        this.thread = new Thread(this::run, "ledger-group-commit");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Runs one write in the next group commit and returns its update count once that group is committed.
     *
     * @param sql the statement with {@code ?} markers
     * @param values its parameter values, in order, as camel-sql computed them
     * @param binder the endpoint's strategy, which binds them to the prepared statement as camel-sql would
     */
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder) throws SQLException {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        synchronized (queue) {
            if (stopped) {
                throw new SQLException("the ledger writer is stopped");
            }
            queue.add(new Write(sql, values, binder, result));
        }
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the ledger commit", e);
        } catch (ExecutionException e) {
            throw LedgerWriter.failureOf(e);
        }
    }

    @Override
    public void reportGroupSizes(IntConsumer sizes) {
        this.groupSizes = sizes;
    }

    /** Transactions committed, and the writes they held: their ratio is the mean group size. */
    public long[] commitsAndWrites() {
        return new long[] {commits.get(), writes.get()};
    }

    /** Checkpoints of the WAL into the ledger file: the background passes, and the writer's own of what was left. */
    public long[] checkpoints() {
        return new long[] {background.passes(), checkpoints.get()};
    }

    private void run() {
        List<Write> group = new ArrayList<>(maxGroup);
        while (true) {
            group.clear();
            try {
                group.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(group, maxGroup - 1);
            // STOP is the last write ever queued (close() queues it under the lock that write() checks first), so when
            // it is in a group it ends that group, and nothing is left behind it
            boolean stop = group.get(group.size() - 1) == STOP;
            if (stop) {
                group.remove(group.size() - 1);
            }
            if (!group.isEmpty()) {
                commit(group);
            }
            if (stop) {
                return;
            }
        }
    }

    /**
     * One transaction for the group; after a write that failed alone, a new one for the writes that did not fail. After
     * a failure of the database itself (a full disk, an I/O error: SQLite may have ended the transaction by then), the
     * whole group fails: none of it is on disk, and no write of it runs again outside a transaction.
     */
    private void commit(List<Write> group) {
        int[] counts = new int[group.size()];
        Exception[] failures = new Exception[group.size()];
        try {
            Connection c = connection();
            execute(c, BEGIN);
            int i = 0;
            while (i < group.size()) {
                if (failures[i] == null) {
                    try {
                        counts[i] = bound(c, group.get(i)).executeUpdate();
                    } catch (SQLException | RuntimeException e) {
                        forget(group.get(i).sql());
                        if (e instanceof SQLException failure && endsTransaction(failure)) {
                            throw failure;
                        }
                        failures[i] = e;
                        // the writes before this one as well: they run again from the first, in a new transaction
                        execute(c, ROLLBACK);
                        execute(c, BEGIN);
                        i = 0;
                        continue;
                    }
                }
                i++;
            }
            execute(c, COMMIT);
        } catch (SQLException | RuntimeException e) {
            LOG.error("ledger commit of {} writes failed, none of them is on disk: {}", group.size(), e.getMessage());
            giveUpConnection();
            for (Write write : group) {
                write.result().completeExceptionally(e);
            }
            return;
        }
        commits.incrementAndGet();
        writes.addAndGet(group.size());
        groupSizes.accept(group.size());
        for (int i = 0; i < group.size(); i++) {
            if (failures[i] != null) {
                group.get(i).result().completeExceptionally(failures[i]);
            } else {
                group.get(i).result().complete(counts[i]);
            }
        }
        // counted by the rows each write changed: a batch of the timed work that deletes thousands of rows fills the WAL
        // with as many pages, a claim with one or two
        for (int count : counts) {
            writesSinceCheckpoint += Math.max(1, count);
        }
        if (background.takeFinished()) {
            checkpoint();
        } else if (writesSinceCheckpoint >= checkpointWrites && background.start()) {
            writesSinceCheckpoint = 0;
        }
    }

    /**
     * Whether SQLite may have rolled the whole transaction back itself on this error (its documentation names
     * SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY and SQLITE_INTERRUPT), or the database cannot be written at
     * all (read-only, corrupt, not a database, gone): no write of the group can be kept, and none may run again
     * outside a transaction. An error that is not SQLite's (camel-sql's binding of the values) came before SQLite saw
     * the statement; a connection that is broken fails the ROLLBACK that follows, and with it the group.
     */
    static boolean endsTransaction(SQLException e) {
        if (!(e instanceof SQLiteException sqlite)) {
            return false;
        }
        return switch (sqlite.getResultCode().code & 0xff) {
            case 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 26 -> true; // BUSY LOCKED NOMEM READONLY INTERRUPT IOERR CORRUPT FULL CANTOPEN PROTOCOL NOTADB
            default -> false;
        };
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    /**
     * Copies what the WAL holds beyond the last background pass into the ledger file, on the writer's connection, now
     * that the last group's callers have their answers. PASSIVE, as SQLite's automatic one: frames that a reader still
     * uses are copied by a later checkpoint. The writes queued meanwhile wait for it, as for a commit. A failure is
     * only logged: nothing is lost, the WAL holds every commit until a checkpoint copies it.
     */
    private void checkpoint() {
        try (Statement statement = connection.createStatement()) {
            statement.execute(BackgroundCheckpoint.PASSIVE);
            checkpoints.incrementAndGet();
        } catch (SQLException e) {
            LOG.warn("checkpoint of the ledger's WAL failed (a later one copies it): {}", e.getMessage());
        }
    }

    /**
     * The writer's connection: the one it has, or one from the pool. A pooled connection that fails its first statement
     * (broken as the writer's own was) is evicted, not handed back, and the next one is tried, up to the pool's size.
     */
    private Connection connection() throws SQLException {
        SQLException failure = null;
        int tries = pool instanceof HikariDataSource hikari ? hikari.getMaximumPoolSize() : 1;
        for (int i = 0; connection == null && i < tries; i++) {
            Connection c = pool.getConnection();
            try {
                // no automatic checkpoint inside this connection's commits: the background one and checkpoint() instead
                execute(c, "PRAGMA wal_autocheckpoint = 0");
                c.setAutoCommit(true);
                connection = c;
            } catch (SQLException e) {
                failure = e;
                WriterConnections.discard(pool, c);
            }
        }
        if (connection == null) {
            throw failure;
        }
        return connection;
    }

    /** The writer's prepared statement for this SQL (prepared once per connection), bound to this write's values. */
    private PreparedStatement bound(Connection c, Write write) throws SQLException {
        PreparedStatement statement = statements.get(write.sql());
        if (statement == null) {
            statement = c.prepareStatement(write.sql());
            statements.put(write.sql(), statement);
        }
        statement.clearParameters();
        write.binder().populateStatement(statement, write.values().iterator(), statement.getParameterMetaData().getParameterCount());
        return statement;
    }

    /** The statement of a failed write, closed: sqlite-jdbc finalizes a statement on most errors, so it is prepared anew. */
    private void forget(String sql) {
        PreparedStatement statement = statements.remove(sql);
        if (statement != null) {
            try {
                statement.close();
            } catch (SQLException e) {
                LOG.debug("close of a failed statement: {}", e.getMessage());
            }
        }
    }

    /**
     * After a group failed as a whole: its transaction rolled back if it still can be, the connection given back for
     * good (a Hikari pool drops it, and opens a new one), so that the next group starts on a new connection.
     */
    private void giveUpConnection() {
        Connection c = connection;
        if (c == null) {
            return;
        }
        connection = null;
        try {
            execute(c, ROLLBACK);
        } catch (SQLException e) {
            // none left: SQLite ended it itself, or the connection is broken
            LOG.debug("rollback of the failed group: {}", e.getMessage());
        }
        WriterConnections.closeStatements(statements);
        WriterConnections.discard(pool, c);
    }

    /** Commits what was queued before it, fails any write that comes later, and gives the connection back to the pool. */
    @Override
    public void close() throws SQLException {
        synchronized (queue) {
            if (stopped) {
                return;
            }
            stopped = true;
            queue.add(STOP);
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        background.close();
        if (!thread.isAlive()) {
            WriterConnections.closeStatements(statements);
            if (connection != null) {
                // as SQLite's automatic checkpoint would: its own, which it runs when the last connection closes, is
                // not run while the pool keeps readers open; the ledger file is then whole without its WAL
                checkpoint();
                connection.close();
                connection = null;
            }
        }
        if (commits.get() > 0) {
            LOG.info("ledger writer stopped: {} writes in {} commits ({} per commit), {} checkpoints in the background and {} after",
                    writes.get(), commits.get(), String.format("%.1f", (double) writes.get() / commits.get()), background.passes(),
                    checkpoints.get());
        }
    }
}
