package dev.idempotentrelay.ledger;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The ledger as the SQL component sees it: reads and statement preparation go to the pool
 * ({@code reads}); every INSERT, UPDATE and DELETE run through a prepared statement goes to one
 * {@link LedgerWriter}, which commits the writes of concurrent exchanges together (group commit).
 * To the routes nothing changes: one statement, one update count, committed when it returns. With
 * {@code groupCommit=false} every write commits alone, straight on the pool.
 */
public class GroupCommitDataSource implements DataSource, AutoCloseable {

    private DataSource reads;
    private boolean groupCommit = true;
    private int maxBatch = 512;
    private volatile LedgerWriter writer;

    public void setReads(DataSource reads) {
        this.reads = reads;
    }

    public DataSource getReads() {
        return reads;
    }

    public void setGroupCommit(boolean groupCommit) {
        this.groupCommit = groupCommit;
    }

    public void setMaxBatch(int maxBatch) {
        this.maxBatch = maxBatch;
    }

    /** Transactions committed by the writer, and the writes they held: their ratio is the mean group size. */
    public long[] commitsAndWrites() {
        LedgerWriter w = writer;
        return w == null ? new long[] {0, 0} : new long[] {w.commits(), w.writes()};
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (!groupCommit) {
            return reads.getConnection();
        }
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                new ConnectionHandler(reads, writer()));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    private LedgerWriter writer() throws SQLException {
        LedgerWriter w = writer;
        if (w == null) {
            synchronized (this) {
                w = writer;
                if (w == null) {
                    // the writer keeps one pooled connection for itself, for as long as the relay runs
                    w = new LedgerWriter(reads.getConnection(), maxBatch);
                    writer = w;
                }
            }
        }
        return w;
    }

    @Override
    public synchronized void close() throws Exception {
        if (writer != null) {
            writer.close();
            writer = null;
        }
        if (reads instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    static boolean isWrite(String sql) {
        String code = sql.strip();
        while (code.startsWith("--")) {
            int eol = code.indexOf('\n');
            code = eol < 0 ? "" : code.substring(eol + 1).strip();
        }
        String verb = code.length() >= 6 ? code.substring(0, 6).toUpperCase(Locale.ROOT) : "";
        return verb.equals("INSERT") || verb.equals("UPDATE") || verb.equals("DELETE");
    }

    /**
     * A connection that borrows a pooled connection only for what is not a write: a write statement is prepared
     * and run on the writer's own connection, so a write that waits for its group commit holds no pooled
     * connection, and the size of the pool does not cap how many writes share a commit.
     */
    private static final class ConnectionHandler implements InvocationHandler {
        private final DataSource reads;
        private final LedgerWriter writer;
        private Connection pooled;
        private boolean closed;

        ConnectionHandler(DataSource reads, LedgerWriter writer) {
            this.reads = reads;
            this.writer = writer;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "prepareStatement":
                    if (args.length == 1 && isWrite((String) args[0])) {
                        checkOpen();
                        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
                                new WriteHandler((String) args[0], writer, (Connection) proxy));
                    }
                    break;
                case "close":
                    closed = true;
                    if (pooled != null) {
                        pooled.close();
                        pooled = null;
                    }
                    return null;
                case "isClosed":
                    return closed;
                default:
                    break;
            }
            checkOpen();
            if (pooled == null) {
                pooled = reads.getConnection();
            }
            return delegate(pooled, method, args);
        }

        private void checkOpen() throws SQLException {
            if (closed) {
                throw new SQLException("the ledger connection is closed");
            }
        }
    }

    /** A write statement: its parameters are recorded, its execution is a write in the next group commit. */
    private static final class WriteHandler implements InvocationHandler {
        private final String sql;
        private final LedgerWriter writer;
        private final Connection connection;
        private final List<LedgerWriter.Binding> bindings = new ArrayList<>();
        private int updateCount = -1;
        private boolean closed;

        WriteHandler(String sql, LedgerWriter writer, Connection connection) {
            this.sql = sql;
            this.writer = writer;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer) {
                bindings.add(new LedgerWriter.Binding(method, args.clone()));
                return null;
            }
            switch (name) {
                case "clearParameters":
                    bindings.clear();
                    return null;
                case "execute":
                case "executeUpdate":
                    if (args == null) {
                        if (closed) {
                            throw new SQLException("the statement is closed");
                        }
                        updateCount = writer.write(sql, List.copyOf(bindings));
                        return name.equals("execute") ? (Object) false : (Object) updateCount;
                    }
                    break;
                case "getUpdateCount":
                    int count = updateCount;
                    updateCount = -1;
                    return count;
                case "getResultSet":
                case "getWarnings":
                    return null;
                case "getMoreResults":
                    return false;
                case "getParameterMetaData":
                    return parameterCount(ParameterMarkers.count(sql));
                case "getConnection":
                    return connection;
                case "setFetchSize":
                case "setMaxRows":
                case "setQueryTimeout":
                case "clearWarnings":
                    return null; // they do not apply to a write
                case "close":
                    closed = true;
                    return null;
                case "isClosed":
                    return closed;
                default:
                    break;
            }
            throw new SQLFeatureNotSupportedException(name + " is not supported on a group-committed write");
        }
    }

    /** The parameter metadata of a write, as camel-sql reads it: how many parameters the statement takes. */
    private static ParameterMetaData parameterCount(int count) {
        return (ParameterMetaData) Proxy.newProxyInstance(GroupCommitDataSource.class.getClassLoader(),
                new Class<?>[] {ParameterMetaData.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getParameterCount")) {
                        return count;
                    }
                    throw new SQLFeatureNotSupportedException(method.getName() + " is not known before the write runs");
                });
    }

    private static Object delegate(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return reads.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        reads.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        reads.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return reads.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return reads.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return reads.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || reads.isWrapperFor(iface);
    }
}
