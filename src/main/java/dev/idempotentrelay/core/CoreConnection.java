package dev.idempotentrelay.core;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.apache.hc.client5.http.impl.io.DefaultManagedHttpClientConnection;

/**
 * A pooled HTTP connection to the core whose check before reuse does not wait. HttpClient's own check reads the
 * socket with a 1 ms timeout: on a live connection, where there is nothing to read, every reuse then waited 1 ms
 * and made a timeout exception. On a plain connection (its socket made from a {@link SocketChannel}) this one reads
 * without blocking instead: nothing to read is a live connection; the end of the stream (the core closed it while it
 * sat idle) or bytes that no request asked for make it stale, and the pool opens a new one. A TLS connection (its
 * socket an SSLSocket, no channel) keeps HttpClient's check.
 */
final class CoreConnection extends DefaultManagedHttpClientConnection {

    private final ByteBuffer probe = ByteBuffer.allocate(1);

    CoreConnection(String id) {
        super(id);
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
