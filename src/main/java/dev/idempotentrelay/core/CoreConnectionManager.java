package dev.idempotentrelay.core;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Proxy;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.io.ManagedHttpClientConnection;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.config.Lookup;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.net.NamedEndpoint;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The pool of HTTP connections to the core. Every pooled connection is checked before it is reused:
 * a keep-alive connection that the core closed while it sat idle carries no delivery, and must not
 * turn a core that has gone down into E901 (outcome unknown) instead of E902 (certainly not sent). The check reads
 * without blocking ({@link CoreConnection}): the sockets to the core are made from socket channels for that.
 * Configured from application.properties as a Camel bean. The JDK's TLS context for an {@code https} core
 * is made on the first https connection, not at start: building it (the default trust store read and parsed)
 * was a large part of the relay's time to listening, for a core that is most often plain http on a private
 * network. The read timeout is kept by one thread for all connections ({@link LateAnswerCloser}), not by the reads.
 * A connection that cannot be made fails its call with {@link CoreNotReachedException}: certainly not sent.
 */
public class CoreConnectionManager extends PoolingHttpClientConnectionManager {

    private final LateAnswerCloser lateAnswers;
    private long connectTimeoutMs = 1000;
    private long validateAfterInactivityMs = 0;

    private static final AtomicLong CONNECTIONS = new AtomicLong();

    public CoreConnectionManager() {
        this(new LateAnswerCloser(5000));
    }

    private CoreConnectionManager(LateAnswerCloser lateAnswers) {
        // what the no-argument constructor of the pool does, with the TLS strategy looked up on first use, sockets
        // made from channels and connections that check them without blocking, their answers timed by lateAnswers
        super(new NotReachedOperator(),
                PoolConcurrencyPolicy.STRICT, PoolReusePolicy.LIFO, TimeValue.NEG_ONE_MILLISECOND, socket -> {
                    CoreConnection connection = new CoreConnection("core-" + CONNECTIONS.incrementAndGet(), lateAnswers);
                    if (socket != null) {
                        connection.bind(socket);
                    }
                    return connection;
                });
        this.lateAnswers = lateAnswers;
        applyConnectionConfig();
    }

    /** A socket of a {@link SocketChannel}, which can be read without blocking; through a proxy, a plain one. */
    private static Socket channelSocket(Proxy proxy) throws java.io.IOException {
        if (proxy != null && proxy.type() != Proxy.Type.DIRECT) {
            return new Socket(proxy);
        }
        return SocketChannel.open().socket();
    }

    public void setConnectTimeoutMs(long connectTimeoutMs) {
        this.connectTimeoutMs = connectTimeoutMs;
        applyConnectionConfig();
    }

    /**
     * Milliseconds from the moment a request begins to leave until its whole answer must have come; past it the
     * connection is closed and the call fails with a SocketTimeoutException ({@link LateAnswerCloser}). The reads
     * themselves wait without a timeout.
     */
    public void setReadTimeoutMs(long readTimeoutMs) {
        lateAnswers.setTimeoutMs(readTimeoutMs);
    }

    /**
     * A pooled connection idle for at least this long is checked before reuse (0: every time). The check is one
     * read that does not wait (for an https core, HttpClient's own check: a read that waits up to 1 ms); above
     * 0, a core that went down less than this long after the last call on a connection may be answered E901
     * instead of E902 for the next transfer on it.
     */
    public void setValidateAfterInactivityMs(long validateAfterInactivityMs) {
        this.validateAfterInactivityMs = validateAfterInactivityMs;
        applyConnectionConfig();
    }

    /** The most connections open to the core at once: as many as transfers may be in flight. */
    public void setMaxConnections(int maxConnections) {
        setMaxTotal(maxConnections);
        setDefaultMaxPerRoute(maxConnections);
    }

    private void applyConnectionConfig() {
        setDefaultConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(Timeout.ofMilliseconds(connectTimeoutMs))
                // no timeout on the socket: LateAnswerCloser keeps the read timeout
                .setSocketTimeout(Timeout.DISABLED)
                .setValidateAfterInactivity(TimeValue.ofMilliseconds(validateAfterInactivityMs))
                .build());
    }

    @Override
    public void close(CloseMode closeMode) {
        lateAnswers.stop();
        super.close(closeMode);
    }

    /**
     * HttpClient's connection operator, with sockets made from channels and the TLS strategy looked up on first use,
     * whose failures to connect (a connect that timed out or was refused, a host without an address or a route) are
     * one exception, {@link CoreNotReachedException}. Every other connect of the operator ends in this one.
     */
    private static final class NotReachedOperator extends DefaultHttpClientConnectionOperator {
        NotReachedOperator() {
            super(CoreConnectionManager::channelSocket, null, null, new TlsOnFirstUse());
        }

        @Override
        public void connect(ManagedHttpClientConnection connection, HttpHost host, NamedEndpoint endpointName, Path unixDomainSocket,
                InetSocketAddress localAddress, Timeout connectTimeout, SocketConfig socketConfig, Object attachment, HttpContext context)
                throws IOException {
            try {
                super.connect(connection, host, endpointName, unixDomainSocket, localAddress, connectTimeout, socketConfig, attachment, context);
            } catch (ConnectTimeoutException | ConnectException | UnknownHostException | NoRouteToHostException e) {
                throw new CoreNotReachedException(e);
            }
        }
    }

    /** HttpClient's default TLS strategy for {@code https}, made when the first https connection asks for it. */
    private static final class TlsOnFirstUse implements Lookup<TlsSocketStrategy> {
        private volatile TlsSocketStrategy tls;

        @Override
        public TlsSocketStrategy lookup(String scheme) {
            if (!URIScheme.HTTPS.same(scheme)) {
                return null;
            }
            TlsSocketStrategy strategy = tls;
            if (strategy == null) {
                synchronized (this) {
                    strategy = tls;
                    if (strategy == null) {
                        strategy = DefaultClientTlsStrategy.createDefault();
                        tls = strategy;
                    }
                }
            }
            return strategy;
        }
    }
}
