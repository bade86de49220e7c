package dev.idempotentrelay.ledger;

import java.sql.Array;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import javax.sql.DataSource;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;
import org.postgresql.PGStatement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of the PostgreSQL ledger's writes (issue 37): the claims and records of concurrent exchanges in one
 * transaction and one commit, where each used to be a transaction of its own. {@code writers} threads, each on a
 * connection of its own from the pool, take what the exchanges queued (at most {@code maxGroup}, waiting up to
 * {@code waitMicros} for more after the first), and run it:
 * <ul>
 * <li>in a fixed order, by statement and then by GUID, so that two groups, of this relay or of another on the same
 * ledger, take the row locks of a statement in the same order and cannot deadlock (the rows that two statements of the
 * channel path could both wait for are claims of the same GUID, by the same statement; a record changes the SENT row
 * of its own relay's claim);</li>
 * <li>the writes of one statement at once, in the statement the endpoint names for a group ({@code groupedAs}: the
 * claims in {@code sql/postgresql/claim-new-guids.sql}, the records in {@code record-dones.sql}), each parameter an array
 * of the group's values, the GUIDs it changed returned; other statements as one JDBC batch. Either way each write gets
 * its own update count, so a claim of a GUID that is already in the ledger, or twice in the group, is claimed once and
 * the others get 0, as alone;</li>
 * <li>on server-side prepared statements, kept by the writer per connection;</li>
 * <li>then committed; each caller gets its update count only once the commit came back plainly.</li>
 * </ul>
 * Every guarantee of {@link BoundedPoolWriter} holds for each write of a group, and the history's triggers write in the
 * same transaction as the change:
 * <ul>
 * <li>A caller waits at most {@code boundMs} (relay.db.connect-wait-ms) for its commit, then gets an
 * {@link SQLTimeoutException} (E902, no core call). A write whose caller stopped waiting before a writer took it never
 * runs; one taken already is left to finish and its outcome logged, as there.</li>
 * <li>A commit that fails, is lost with its connection, or comes back with a warning (a cancelled wait for a
 * synchronous standby) fails every write of the group, and none of them runs again: its outcome is unknown. Each
 * caller gets the failure (E902 for a claim, no core call). The writer gives that connection up (evicted from the
 * pool) and takes a new one for its next group.</li>
 * <li>A statement that fails before the commit (a constraint, a value the SQL refuses) rolls the transaction back; the
 * group's writes then run again each in a transaction of its own, so that the failure is its write's alone.</li>
 * </ul>
 * The timed work's batches, which name a commit wait of their own, are not grouped: they go to a {@link
 * BoundedPoolWriter} as before, each a statement of thousands of rows.
 * <p>
 * Measured against one commit per write (the build of 510ad6f), one relay at 32 connections on 2 cores, five rounds:
 * 2.16x the transfers a second (medians 1,253 and 2,701), 232 to 306 µs of the server's CPU per transfer against 513 to
 * 886, 0.25 transactions per transfer against 2 ({@code OLD=old.jar RUNS="old-1 pg-1" scripts/bench-postgres.sh},
 * docs/performance.md, "Group commit on PostgreSQL").
 */
public final class PostgresGroupCommit implements LedgerWriter {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresGroupCommit.class);

    /** A write as camel-sql prepared it, the GUID it changes (its lock's place in the order), and who waits for it. */
    private static final class Write {
        final String sql;
        final List<?> values;
        final SqlPrepareStatementStrategy binder;
        final String guid;
        /** The statement of a run of such writes at once (the endpoint's groupedAs), or null. */
        final String groupSql;
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        /** Set once, by the writer that runs it or by the caller that stopped waiting: whoever sets it decides. */
        final AtomicBoolean taken = new AtomicBoolean();

        Write(String sql, List<?> values, SqlPrepareStatementStrategy binder, String guid, String groupSql) {
            this.sql = sql;
            this.values = values;
            this.binder = binder;
            this.guid = guid == null ? "" : guid;
            this.groupSql = guid == null ? null : groupSql;
        }
    }

    /** The order of a group: by statement, then by GUID (a GUID twice keeps the order in which its writes came). */
    static final Comparator<Write> LOCK_ORDER = Comparator.<Write, String>comparing(w -> w.sql).thenComparing(w -> w.guid);

    private static final Write STOP = new Write(null, null, null, null, null);

    private final DataSource pool;
    private final long boundMs;
    private final int maxGroup;
    private final long waitNanos;
    private final BoundedPoolWriter timedWork;
    private final BlockingQueue<Write> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong rolledBack = new AtomicLong();
    private final AtomicLong atOnce = new AtomicLong();
    private volatile IntConsumer groupSizes = size -> { };
    private boolean stopped; // guarded by queue

    /**
     * Starts the writer threads; each takes its connection from {@code pool} at its first group.
     *
     * @param boundMs the most a caller waits for its commit (relay.db.connect-wait-ms)
     * @param maxGroup the most writes in one transaction
     * @param waitMicros how long a writer waits for more writes after the first of a group (0: it takes what is queued)
     * @param writers the writer threads, and so the connections held for writes
     */
    public PostgresGroupCommit(DataSource pool, long boundMs, int maxGroup, long waitMicros, int writers) {
        if (maxGroup < 1 || writers < 1 || waitMicros < 0) {
            throw new IllegalArgumentException("group commit needs at least one write per group and one writer, and a wait of 0 or more");
        }
        this.pool = pool;
        this.boundMs = boundMs;
        this.maxGroup = maxGroup;
        this.waitNanos = TimeUnit.MICROSECONDS.toNanos(waitMicros);
        this.timedWork = new BoundedPoolWriter(pool, boundMs);
        for (int i = 1; i <= writers; i++) {
            Thread thread = new Thread(this::run, "ledger-group-commit-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
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

    /** Runs of a group's writes that went in one statement of the group (groupedAs), not one by one. */
    public long runsAtOnce() {
        return atOnce.get();
    }

    /** Groups rolled back for a statement that failed, whose writes then ran each alone. */
    public long rolledBack() {
        return rolledBack.get();
    }

    @Override
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder) throws SQLException {
        return write(sql, values, binder, null, null);
    }

    @Override
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder, String guid, String groupSql) throws SQLException {
        long start = System.nanoTime();
        Write write = new Write(sql, values, binder, guid, groupSql);
        synchronized (queue) {
            if (stopped) {
                throw new SQLException("the ledger writer is stopped");
            }
            queue.add(write);
        }
        try {
            return write.result.get(boundMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (write.taken.compareAndSet(false, true)) {
                throw new SQLTimeoutException("the ledger's writers did not take this write within " + boundMs + " ms (it never ran)");
            }
            write.result.whenComplete((count, failure) -> BoundedPoolWriter.logLate(start, boundMs, count, failure));
            throw new SQLTimeoutException("the ledger's commit did not complete within " + boundMs + " ms (left to finish, not cancelled)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the ledger's commit", e);
        } catch (ExecutionException e) {
            throw LedgerWriter.failureOf(e);
        }
    }

    /** A batch of the timed work: alone, on the pool, its caller waiting {@code commitWaitMs} (see the class comment). */
    @Override
    public int write(String sql, List<?> values, SqlPrepareStatementStrategy binder, long commitWaitMs) throws SQLException {
        return timedWork.write(sql, values, binder, commitWaitMs);
    }

    /** A writer thread: its connection, its prepared statements, and its groups one after another until STOP. */
    private void run() {
        Map<String, PreparedStatement> statements = new HashMap<>();
        Connection[] connection = {null};
        List<Write> group = new ArrayList<>(maxGroup);
        try {
            while (true) {
                group.clear();
                Write first = queue.take();
                if (first == STOP) {
                    queue.add(STOP); // for the other writers
                    return;
                }
                group.add(first);
                boolean stop = fill(group);
                group.removeIf(w -> !w.taken.compareAndSet(false, true)); // callers that stopped waiting: never run
                if (!group.isEmpty()) {
                    group.sort(LOCK_ORDER);
                    try {
                        commit(group, connection, statements);
                    } catch (RuntimeException | Error e) {
                        // whatever happened, the writer goes on: its callers fail, its connection is given up
                        LOG.error("a group of {} ledger writes failed unexpectedly", group.size(), e);
                        giveUp(connection, statements, true);
                        fail(group, e);
                    }
                }
                if (stop) {
                    queue.add(STOP);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            giveUp(connection, statements, false);
        }
    }

    /** The rest of a group: what is queued, and what comes within the wait; true when STOP came (it is not in the group). */
    private boolean fill(List<Write> group) throws InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        while (group.size() < maxGroup) {
            Write next = queue.poll();
            if (next == null && waitNanos > 0) {
                long left = deadline - System.nanoTime();
                next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
            }
            if (next == null) {
                return false;
            }
            if (next == STOP) {
                return true;
            }
            group.add(next);
        }
        return false;
    }

    /**
     * One transaction for the group (see the class comment for what fails what). A group of more than one whose statement
     * failed on a connection that is still good is rolled back, and each of its writes runs again as a group of its own:
     * a write that fails alone fails only its caller, and is not run again.
     */
    private void commit(List<Write> group, Connection[] connection, Map<String, PreparedStatement> statements) {
        int[] counts = new int[group.size()];
        Connection c;
        try {
            c = connection(connection);
            run(c, group, counts, statements);
        } catch (SQLException | RuntimeException e) {
            // nothing of the group is committed
            if (connection[0] == null) {
                LOG.warn("no ledger connection for a group of {} writes: {}", group.size(), e.getMessage());
                fail(group, e);
            } else if (!rollback(connection[0]) || isConnectionLost(e)) {
                LOG.warn("a group of {} ledger writes failed and its connection with it: {}", group.size(), e.getMessage());
                giveUp(connection, statements, true);
                fail(group, e);
            } else if (group.size() == 1) {
                fail(group, e);
            } else {
                rolledBack.incrementAndGet();
                LOG.info("a group of {} ledger writes was rolled back ({}); each runs again alone", group.size(), e.getMessage());
                for (Write write : group) {
                    commit(List.of(write), connection, statements);
                }
            }
            return;
        }
        try {
            commitPlainly(c);
        } catch (SQLException | RuntimeException e) {
            LOG.error("ledger commit of a group of {} writes failed or is unknown, none is taken as committed: {}", group.size(), e.getMessage());
            giveUp(connection, statements, true);
            fail(group, e);
            return;
        }
        commits.incrementAndGet();
        writes.addAndGet(group.size());
        groupSizes.accept(group.size());
        for (int i = 0; i < group.size(); i++) {
            group.get(i).result.complete(counts[i]);
        }
    }

    /** The commit, taken only when it came back plainly: a warning (a cancelled wait for a synchronous standby) fails it. */
    private static void commitPlainly(Connection c) throws SQLException {
        c.commit();
        BoundedPoolWriter.requireNoWarning(c.getWarnings());
        c.clearWarnings();
    }

    /**
     * The group's writes, each run of the same statement at once (its group statement, or a JDBC batch); their update
     * counts into counts.
     */
    private void run(Connection c, List<Write> group, int[] counts, Map<String, PreparedStatement> statements) throws SQLException {
        int i = 0;
        while (i < group.size()) {
            String sql = group.get(i).sql;
            int end = i + 1;
            while (end < group.size() && group.get(end).sql.equals(sql)) {
                end++;
            }
            String groupSql = group.get(i).groupSql;
            if (end - i > 1 && groupSql != null && runAtOnce(c, group, i, end, counts, prepared(c, groupSql, statements))) {
                atOnce.incrementAndGet();
                i = end;
                continue;
            }
            PreparedStatement statement = prepared(c, sql, statements);
            if (end - i == 1) {
                Write write = group.get(i);
                write.binder.populateStatement(statement, write.values.iterator(), write.values.size());
                counts[i] = statement.executeUpdate();
            } else {
                for (int k = i; k < end; k++) {
                    Write write = group.get(k);
                    write.binder.populateStatement(statement, write.values.iterator(), write.values.size());
                    statement.addBatch();
                }
                int[] batch;
                try {
                    batch = statement.executeBatch();
                } catch (BatchUpdateException e) {
                    statement.clearBatch();
                    throw e.getNextException() != null ? e.getNextException() : e;
                }
                System.arraycopy(batch, 0, counts, i, batch.length);
            }
            i = end;
        }
    }

    /** The writer's prepared statement of this SQL on its connection: server-side from its first use (the driver waits for the fifth). */
    private static PreparedStatement prepared(Connection c, String sql, Map<String, PreparedStatement> statements) throws SQLException {
        PreparedStatement statement = statements.get(sql);
        if (statement == null) {
            statement = c.prepareStatement(sql);
            statement.unwrap(PGStatement.class).setPrepareThreshold(1);
            statements.put(sql, statement);
        }
        return statement;
    }

    /**
     * The writes from {@code from} to {@code to} (the same statement) as one statement of the group: each parameter an
     * array of their values, in the group's order; of the GUIDs it returns, each is the change of its first write (1),
     * every other write changed nothing (0), as each would alone. False, with nothing run, when a parameter's values are
     * of a type this does not make arrays of: the writes then run one by one.
     */
    private static boolean runAtOnce(Connection c, List<Write> group, int from, int to, int[] counts, PreparedStatement statement)
            throws SQLException {
        int parameters = group.get(from).values.size();
        for (int p = 0; p < parameters; p++) {
            Array column = column(c, group, from, to, p);
            if (column == null) {
                return false;
            }
            statement.setArray(p + 1, column);
        }
        Set<String> changed = new HashSet<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                changed.add(rows.getString(1));
            }
        }
        for (int k = from; k < to; k++) {
            counts[k] = changed.remove(group.get(k).guid) ? 1 : 0;
        }
        return true;
    }

    /** The values of parameter {@code p} of the writes from {@code from} to {@code to}, as a SQL array, or null. */
    private static Array column(Connection c, List<Write> group, int from, int to, int p) throws SQLException {
        Object first = null;
        for (int k = from; k < to && first == null; k++) {
            first = group.get(k).values.get(p);
        }
        Object[] values;
        String type;
        if (first == null || first instanceof String) {
            values = new String[to - from];
            type = "varchar";
        } else if (first instanceof byte[]) {
            values = new byte[to - from][];
            type = "bytea";
        } else if (first instanceof Integer) {
            values = new Integer[to - from];
            type = "int4";
        } else if (first instanceof Long) {
            values = new Long[to - from];
            type = "int8";
        } else {
            return null;
        }
        for (int k = from; k < to; k++) {
            Object value = group.get(k).values.get(p);
            if (value != null && !values.getClass().getComponentType().isInstance(value)) {
                return null;
            }
            values[k - from] = value;
        }
        return c.createArrayOf(type, values);
    }

    /** The writer's connection: the one it has, or one from the pool, out of autocommit. */
    private Connection connection(Connection[] connection) throws SQLException {
        if (connection[0] == null) {
            Connection c = pool.getConnection();
            try {
                c.setAutoCommit(false);
            } catch (SQLException e) {
                WriterConnections.discard(pool, c);
                throw e;
            }
            connection[0] = c;
        }
        return connection[0];
    }

    private static boolean rollback(Connection c) {
        try {
            c.rollback();
            return true;
        } catch (SQLException e) {
            LOG.debug("rollback of a failed group: {}", e.getMessage());
            return false;
        }
    }

    /** A connection lost, or a server that can no longer write (SQLSTATE 08, 57P, 25006): no write may run again on it. */
    private static boolean isConnectionLost(Exception e) {
        if (e instanceof SQLException sql && sql.getSQLState() != null) {
            String state = sql.getSQLState();
            return state.startsWith("08") || state.startsWith("57P") || state.equals("25006");
        }
        return false;
    }

    /** The writer's connection given up: its statements closed, the connection evicted (failed) or handed back. */
    private void giveUp(Connection[] connection, Map<String, PreparedStatement> statements, boolean failed) {
        WriterConnections.closeStatements(statements);
        Connection c = connection[0];
        connection[0] = null;
        if (c == null) {
            return;
        }
        if (failed) {
            WriterConnections.discard(pool, c);
            return;
        }
        try {
            c.rollback();
            c.setAutoCommit(true);
            c.close();
        } catch (SQLException e) {
            WriterConnections.discard(pool, c);
        }
    }

    private static void fail(List<Write> group, Throwable e) {
        for (Write write : group) {
            write.result.completeExceptionally(e);
        }
    }

    /** Commits what was queued before it, fails any write that comes later, and hands the connections back. */
    @Override
    public void close() throws SQLException {
        synchronized (queue) {
            if (stopped) {
                return;
            }
            stopped = true;
            queue.add(STOP);
        }
        for (Thread thread : threads) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timedWork.close();
        if (commits.get() > 0) {
            LOG.info("ledger writer stopped: {} writes in {} commits ({} per commit), {} groups rolled back", writes.get(), commits.get(),
                    String.format("%.1f", (double) writes.get() / commits.get()), rolledBack.get());
        }
    }
}
