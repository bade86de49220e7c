package dev.idempotentrelay.jobs;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.quartz.utils.ConnectionProvider;

/**
 * The ledger's own pool as a Quartz data source: the clustered job store takes its connections from the pool the
 * routes use, on the same PostgreSQL database. Quartz sets and restores each connection's auto-commit itself. The
 * pool is the relay's: Quartz's shutdown leaves it open, {@code Relay.close} closes it after the scheduler stopped.
 */
final class LedgerConnectionProvider implements ConnectionProvider {

    private final DataSource ledger;

    LedgerConnectionProvider(DataSource ledger) {
        this.ledger = ledger;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return ledger.getConnection();
    }

    @Override
    public void initialize() {
        // the pool is open already
    }

    @Override
    public void shutdown() {
        // the relay closes its pool
    }
}
