package dev.idempotentrelay.ledger;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The SQLite ledger's connections, each keeping the statements it prepared: {@code prepareStatement(sql)} hands out
 * one this connection prepared before for the same SQL and that was closed since, and {@code close()} of such a
 * statement keeps it (its result set closed, its parameters cleared) for the next. sqlite-jdbc compiles the SQL at
 * every {@code prepareStatement}, and camel-sql prepares a statement at every execution: for a resend, a read of its
 * GUID's row, that compile was a tenth of the relay's work. A statement that failed is closed for good (sqlite-jdbc
 * finalizes one on most errors). Hikari pools these connections as any other; PostgreSQL's driver keeps its prepared
 * statements itself. What it is worth: with sqlite-jdbc's plain data source instead, resends of DONE GUIDs at 32
 * connections ran at 0.77x the throughput and 1.34x the relay's CPU per reply; new transfers, which read nothing,
 * the same with or without it (six alternating rounds each, 2026-12-07; scripts/ledger/bench-pieces.sh, docs/performance.md#the-ledgers-own-pieces).
 */
public final class ReusedStatements implements DataSource {

    private final String url;
    private volatile int loginTimeout;

    public ReusedStatements(String url) {
        this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(url);
        return (Connection) Proxy.newProxyInstance(ReusedStatements.class.getClassLoader(), new Class<?>[] {Connection.class},
                new KeepingConnection(connection));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    /** One connection: the statements closed since they were prepared, by SQL; used by one thread at a time. */
    private static final class KeepingConnection implements InvocationHandler {

        private final Connection connection;
        private final Map<String, ArrayDeque<PreparedStatement>> kept = new HashMap<>();

        KeepingConnection(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("prepareStatement") && args.length == 1) {
                String sql = (String) args[0];
                ArrayDeque<PreparedStatement> closed = kept.get(sql);
                PreparedStatement statement = closed == null ? null : closed.poll();
                if (statement == null) {
                    statement = connection.prepareStatement(sql);
                }
                return Proxy.newProxyInstance(ReusedStatements.class.getClassLoader(), new Class<?>[] {PreparedStatement.class},
                        new KeptStatement(this, sql, statement));
            }
            if (name.equals("close")) {
                for (ArrayDeque<PreparedStatement> statements : kept.values()) {
                    for (PreparedStatement statement : statements) {
                        closeQuietly(statement);
                    }
                }
                kept.clear();
            }
            return call(connection, method, args);
        }

        void keep(String sql, PreparedStatement statement) {
            kept.computeIfAbsent(sql, s -> new ArrayDeque<>(2)).push(statement);
        }
    }

    /** One use of a statement, from its prepareStatement to its close. */
    private static final class KeptStatement implements InvocationHandler {

        private final KeepingConnection connection;
        private final String sql;
        private final PreparedStatement statement;
        private ResultSet results;
        private boolean failed;
        private boolean closed;

        KeptStatement(KeepingConnection connection, String sql, PreparedStatement statement) {
            this.connection = connection;
            this.sql = sql;
            this.statement = statement;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("close")) {
                close();
                return null;
            }
            if (name.equals("isClosed")) {
                return closed;
            }
            // each use is a statement of its own to its user: this use's identity, not the kept statement's
            if (name.equals("equals")) {
                return proxy == args[0];
            }
            if (name.equals("hashCode")) {
                return System.identityHashCode(proxy);
            }
            if (closed) {
                throw new SQLException("statement closed");
            }
            try {
                Object result = call(statement, method, args);
                if (result instanceof ResultSet set) {
                    results = set;
                }
                return result;
            } catch (SQLException e) {
                failed = true;
                throw e;
            }
        }

        private void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (results != null && !results.isClosed()) {
                    results.close();
                }
                if (!failed) {
                    statement.clearParameters();
                    connection.keep(sql, statement);
                    return;
                }
            } catch (SQLException e) {
                // not kept: closed below
            }
            closeQuietly(statement);
        }
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void closeQuietly(PreparedStatement statement) {
        try {
            statement.close();
        } catch (SQLException e) {
            // a statement of a connection that is going away
        }
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    /** Kept for Hikari, which sets it from its connection timeout and waits that long for a connection on close. */
    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
