package dev.idempotentrelay.ledger;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the PostgreSQL ledger's pool gets its connections: pgjdbc on the relay's URL (a multi-host
 * {@code jdbc:postgresql://h1:p1,h2:p2/db?targetServerType=primary} finds the primary among the hosts), with the
 * user and the password, and a few defaults that the URL may override ({@link #DEFAULTS}).
 * <p>
 * Once the relay has had a connection, a server that cannot be reached (SQLSTATE class 08: refused, no primary among
 * the hosts, timed out; 57P0x: shutting down, starting up, in recovery) is tried again every {@link #RETRY_MS} ms
 * inside the same call, until one takes the connection or the pool closes. The pool (HikariCP) would instead count
 * each failure and wait longer after each, doubling up to 5 s: after a failover of a few seconds its next attempt
 * came up to 2.5 s after the new primary took writes. Here the first attempt after the promotion is at most
 * {@link #RETRY_MS} ms late. Before the first connection every failure is the caller's at once, so that a relay
 * started on a wrong URL or a database that is down says why and does not start. Any other failure (a wrong password,
 * no such database) is the caller's at once too.
 */
public final class PrimaryConnections implements DataSource {

    private static final Logger LOG = LoggerFactory.getLogger(PrimaryConnections.class);

    /** Milliseconds between two attempts while no server takes the connection. */
    static final long RETRY_MS = 100;

    /**
     * pgjdbc's properties unless the URL sets them: the relay's name in pg_stat_activity; at most 1 s for the TCP
     * connection to each host (pgjdbc's default is 10 s: a host that is gone without a reset, behind a multi-host URL,
     * would hold up each attempt that long before the next host); at most 10 s for a whole attempt (a server that
     * takes the TCP connection and then says nothing). No socketTimeout: a commit is never cut off.
     */
    static final Map<String, String> DEFAULTS = Map.of(
            "ApplicationName", "idempotent-relay",
            "connectTimeout", "1",
            "loginTimeout", "10");

    private final Driver driver = new org.postgresql.Driver();
    private final String url;
    private final Properties properties = new Properties();
    private volatile BooleanSupplier poolClosed = () -> false;
    private volatile boolean connectedOnce;

    public PrimaryConnections(String url, String user, String password) {
        this.url = url;
        properties.putAll(DEFAULTS);
        if (user != null && !user.isBlank()) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
    }

    /** Stops the attempts once this is true (the pool closed). */
    public void stopWhen(BooleanSupplier poolClosed) {
        this.poolClosed = poolClosed;
    }

    @Override
    public Connection getConnection() throws SQLException {
        long failingSince = 0;
        while (true) {
            try {
                Connection connection = driver.connect(url, properties);
                if (connection == null) {
                    throw new SQLException("not a PostgreSQL JDBC URL: " + LedgerDialect.describe(url));
                }
                if (failingSince != 0) {
                    LOG.info("the ledger takes connections again, {} ms after the first failed attempt",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSince));
                }
                connectedOnce = true;
                return connection;
            } catch (SQLException e) {
                if (!connectedOnce || !unavailable(e) || poolClosed.getAsBoolean()) {
                    throw e;
                }
                if (failingSince == 0) {
                    failingSince = System.nanoTime();
                    LOG.warn("no ledger server takes a connection ({}): trying again every {} ms", e.getMessage(), RETRY_MS);
                }
                try {
                    Thread.sleep(RETRY_MS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** A failure that a failover or a restart of the server explains, and that the next attempt may not meet. */
    static boolean unavailable(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P0"));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the ledger's user and password are given when the pool is made");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // pgjdbc logs through java.util.logging
    }

    /** HikariCP sets its connection timeout here; each attempt is bounded by {@link #DEFAULTS} instead. */
    @Override
    public void setLoginTimeout(int seconds) {
        // see above
    }

    /** How long HikariCP, closing, waits for an attempt on its way: pgjdbc's loginTimeout of {@link #DEFAULTS}. */
    @Override
    public int getLoginTimeout() {
        return Integer.parseInt(DEFAULTS.get("loginTimeout"));
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
