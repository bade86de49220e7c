package dev.idempotentrelay.core;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.apache.hc.client5.http.impl.io.DefaultManagedHttpClientConnection;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.io.CloseMode;

/**
 * A pooled HTTP connection to the core whose check before reuse does not wait. HttpClient's own check reads the
 * socket with a 1 ms timeout: on a live connection, where there is nothing to read, every reuse then waited 1 ms
 * and made a timeout exception. On a plain connection (its socket made from a {@link SocketChannel}) this one reads
 * without blocking instead: nothing to read is a live connection; the end of the stream (the core closed it while it
 * sat idle) or bytes that no request asked for make it stale, and the pool opens a new one. A TLS connection (its
 * socket an SSLSocket, no channel) keeps HttpClient's check.
 * <p>
 * Its reads wait without a timeout: the read timeout is kept by {@link LateAnswerCloser}, which closes the
 * connection once its answer is late; the call waiting on it then fails with a {@link SocketTimeoutException}.
 */
final class CoreConnection extends DefaultManagedHttpClientConnection {

    /** No request of this connection waits for its answer. */
    private static final long NOTHING_DUE = Long.MIN_VALUE;

    private final ByteBuffer probe = ByteBuffer.allocate(1);
    private final LateAnswerCloser lateAnswers;
    private volatile long answerDue = NOTHING_DUE;
    private volatile boolean closedLate;

    CoreConnection(String id, LateAnswerCloser lateAnswers) {
        super(id);
        this.lateAnswers = lateAnswers;
        lateAnswers.watch(this);
    }

    /** The answer is due within the read timeout from now, when the request begins to leave. */
    @Override
    public void sendRequestHeader(ClassicHttpRequest request) throws HttpException, IOException {
        answerDue = lateAnswers.dueFromNow();
        super.sendRequestHeader(request);
    }

    @Override
    public ClassicHttpResponse receiveResponseHeader() throws HttpException, IOException {
        try {
            return super.receiveResponseHeader();
        } catch (IOException e) {
            if (closedLate) {
                SocketTimeoutException late = new SocketTimeoutException(
                        "no answer from the core within " + lateAnswers.timeoutMs() + " ms (read timeout)");
                late.initCause(e);
                throw late;
            }
            throw e;
        }
    }

    /** Back in the pool, its answer read: nothing is due. */
    @Override
    public void passivate() {
        answerDue = NOTHING_DUE;
        super.passivate();
    }

    @Override
    public void close(CloseMode closeMode) {
        unwatch();
        super.close(closeMode);
    }

    @Override
    public void close() throws IOException {
        unwatch();
        super.close();
    }

    /** Closed, by either of HttpClient's two ways: nothing is due, and the closer no longer looks at it. */
    private void unwatch() {
        answerDue = NOTHING_DUE;
        lateAnswers.forget(this);
    }

    /** Closes this connection if its answer was due before {@code now} (System.nanoTime()). */
    void closeIfLate(long now) {
        long due = answerDue;
        if (due != NOTHING_DUE && now - due > 0) {
            closedLate = true;
            close(CloseMode.IMMEDIATE);
        }
    }

    @Override
    public boolean isStale() throws IOException {
        if (!isOpen()) {
            return true;
        }
        Socket socket = getSocket();
        SocketChannel channel = socket == null ? null : socket.getChannel();
        if (channel == null) {
            return super.isStale();
        }
        synchronized (channel.blockingLock()) {
            try {
                channel.configureBlocking(false);
                probe.clear();
                return channel.read(probe) != 0;
            } catch (IOException e) {
                return true;
            } finally {
                if (channel.isOpen()) {
                    channel.configureBlocking(true);
                }
            }
        }
    }
}
