package dev.idempotentrelay.ledger;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HikariCP's verdict on a connection whose statement failed, for the PostgreSQL ledger: a server that can no longer
 * be written means that every connection of the pool, all on that server, is done with, not only the one that found
 * out. So on such a failure the connection is evicted and the others are too (HikariCP's soft eviction: idle ones
 * closed now, those in use once they are given back); the next connections find the primary again (pgjdbc's
 * {@code targetServerType=primary}).
 * <ul>
 * <li>SQLSTATE 25006, read-only transaction: the server was demoted, or fenced read-only. HikariCP keeps such a
 * connection (to it a failed statement); here it must go, or the relay would answer E902 for ever while a new primary
 * takes writes elsewhere.</li>
 * <li>Class 08 (connection lost) and 57P01 to 57P03 (administrator shutdown, crash, cannot connect now): HikariCP
 * evicts that connection; the others go with it.</li>
 * </ul>
 * Every other failure (a constraint, a bad value) leaves the pool as it is.
 */
public final class FailoverEviction implements SQLExceptionOverride {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverEviction.class);

    static final String READ_ONLY_TRANSACTION = "25006";

    private volatile HikariDataSource pool;

    /** The pool whose connections go when one of them finds its server gone (set once the pool exists). */
    public void setPool(HikariDataSource pool) {
        this.pool = pool;
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        String state = e.getSQLState();
        if (READ_ONLY_TRANSACTION.equals(state)) {
            evictAll(e);
            return Override.MUST_EVICT;
        }
        if (state != null && (state.startsWith("08") || state.startsWith("57P0"))) {
            evictAll(e);
        }
        return Override.CONTINUE_EVICT;
    }

    private void evictAll(SQLException e) {
        HikariDataSource target = pool;
        if (target != null && !target.isClosed() && target.getHikariPoolMXBean() != null) {
            LOG.warn("the ledger's server cannot be written through this connection (SQLSTATE {}: {}): every connection of the pool "
                    + "is replaced", e.getSQLState(), e.getMessage());
            target.getHikariPoolMXBean().softEvictConnections();
        }
    }
}
