package dev.idempotentrelay.ledger;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the group-commit writers do with the connection they hold and its statements when they give it up. */
final class WriterConnections {

    private static final Logger LOG = LoggerFactory.getLogger(WriterConnections.class);

    private WriterConnections() {
    }

    /** The writer's prepared statements, closed and forgotten (a close that fails is only logged). */
    static void closeStatements(Map<String, PreparedStatement> statements) {
        for (PreparedStatement statement : statements.values()) {
            try {
                statement.close();
            } catch (SQLException e) {
                LOG.debug("close of a statement: {}", e.getMessage());
            }
        }
        statements.clear();
    }

    /** A connection that failed, evicted from the pool so that it is never handed out again (closed, where the pool is not HikariCP). */
    static void discard(DataSource pool, Connection c) {
        if (pool instanceof HikariDataSource hikari) {
            hikari.evictConnection(c);
        } else {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("close of the failed connection: {}", e.getMessage());
            }
        }
    }
}
