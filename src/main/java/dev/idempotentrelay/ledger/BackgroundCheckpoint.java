package dev.idempotentrelay.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the SQLite ledger's WAL into the ledger file (a PASSIVE checkpoint) on a thread and a pooled connection of
 * its own, when {@link SqliteGroupCommit}'s writer asks, while the writer goes on committing. A pass copies what the
 * WAL held when it began; the writer copies the frames it committed meanwhile itself (few), after which SQLite starts
 * the WAL over at the next write. A failed pass is logged and left to the next: nothing is lost, the WAL holds every
 * commit until a checkpoint copies it.
 */
final class BackgroundCheckpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundCheckpoint.class);

    /** The checkpoint both run, as SQLite's automatic one does: frames a reader still uses wait for a later one. */
    static final String PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)";

    private final DataSource pool;
    private final Semaphore asked = new Semaphore(0);
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final AtomicLong passes = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private Connection connection; // the thread's own

    BackgroundCheckpoint(DataSource pool) {
        this.pool = pool;
        this.thread = new Thread(this::run, "ledger-checkpoint");
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts a pass, unless one is under way: then false, and the caller asks again later. */
    boolean start() {
        if (stopped || !running.compareAndSet(false, true)) {
            return false;
        }
        asked.release();
        return true;
    }

    /** Whether a pass finished since the last call: the WAL then holds only what was committed during that pass. */
    boolean takeFinished() {
        return finished.compareAndSet(true, false);
    }

    /** Passes run so far. */
    long passes() {
        return passes.get();
    }

    private void run() {
        while (!stopped) {
            try {
                asked.acquire();
            } catch (InterruptedException e) {
                break;
            }
            if (stopped) {
                break;
            }
            try {
                if (connection == null) {
                    connection = pool.getConnection();
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute(PASSIVE);
                }
                passes.incrementAndGet();
            } catch (SQLException e) {
                LOG.warn("checkpoint of the ledger's WAL failed (a later one copies it): {}", e.getMessage());
                closeConnection();
            }
            running.set(false);
            finished.set(true);
        }
        closeConnection();
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("close of the checkpoint connection: {}", e.getMessage());
            }
            connection = null;
        }
    }

    /** Stops the thread after the pass under way, if any, and gives its connection back. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
