package dev.idempotentrelay.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.Test;

/**
 * The pool makes its TLS context only when an https core asks for it: a plain http core is called in clear text,
 * and an https core still gets a TLS handshake (its first byte on the wire is a TLS handshake record, 0x16). A pooled
 * connection is reused while it lives, and one that the core closed while it sat idle is not: the next call opens a
 * new one instead of sending into a closed connection (what would be E901 instead of E902 on the channel path). The
 * read timeout is kept for the pool by one thread: an answer that has not come within it fails the call with a
 * SocketTimeoutException; one that comes in time is taken, and a pooled connection may idle longer than the timeout.
 */
class CoreConnectionManagerTest {

    @Test
    void anHttpCoreIsCalledInClearTextAndAnHttpsCoreWithATlsHandshake() throws Exception {
        CoreConnectionManager pool = new CoreConnectionManager();
        pool.setReadTimeoutMs(2_000);
        try (CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool).build()) {
            assertEquals('G', firstByteSent(client, "http"));
            assertEquals(0x16, firstByteSent(client, "https"));
        }
    }

    @Test
    void aLiveConnectionIsReusedAndOneTheCoreClosedIsNot() throws Exception {
        CoreConnectionManager pool = new CoreConnectionManager();
        pool.setReadTimeoutMs(5_000);
        try (KeepAliveServer core = new KeepAliveServer();
                CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool).disableAutomaticRetries().build()) {
            String url = "http://127.0.0.1:" + core.server.getLocalPort() + "/v1/transfers";
            assertEquals(200, status(client, url));
            assertEquals(200, status(client, url));
            assertEquals(1, core.accepted.size(), "the second call reused the first call's connection");

            core.closeConnections();
            assertEquals(200, status(client, url));
            assertEquals(2, core.accepted.size(), "the connection the core closed was not reused");
        }
    }

    @Test
    void anAnswerLaterThanTheReadTimeoutFailsTheCallAndOneInTimeIsTaken() throws Exception {
        CoreConnectionManager pool = new CoreConnectionManager();
        pool.setReadTimeoutMs(400);
        try (KeepAliveServer core = new KeepAliveServer();
                CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool).disableAutomaticRetries().build()) {
            String url = "http://127.0.0.1:" + core.server.getLocalPort() + "/v1/transfers";
            core.delayMs = 100;
            assertEquals(200, status(client, url));

            core.delayMs = 3_000;
            long start = System.nanoTime();
            SocketTimeoutException late = assertThrows(SocketTimeoutException.class,
                    () -> status(client, url));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals("no answer from the core within 400 ms (read timeout)", late.getMessage());
            assertTrue(tookMs >= 400 && tookMs < 2_000, "the late answer was cut off after " + tookMs + " ms");

            // a connection idle in the pool for longer than the read timeout is not cut off: the next call reuses it
            core.delayMs = 0;
            assertEquals(200, status(client, url));
            int accepted = core.accepted.size();
            Thread.sleep(1_000); // idle for 2.5 read timeouts: the closer looked at it 50 times meanwhile
            assertEquals(200, status(client, url));
            assertEquals(accepted, core.accepted.size(), "the idle connection was reused, not closed as late");
        }
    }

    @Test
    void aCoreThatTakesNoConnectionIsNotReachedAndALateAnswerIsNot() throws Exception {
        CoreConnectionManager pool = new CoreConnectionManager();
        pool.setReadTimeoutMs(400);
        int closedPort;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = gone.getLocalPort();
        }
        try (KeepAliveServer core = new KeepAliveServer();
                CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool).disableAutomaticRetries().build()) {
            // nothing listens: refused, so no request left (E902 on the channel path)
            CoreNotReachedException refused = assertThrows(CoreNotReachedException.class,
                    () -> status(client, "http://127.0.0.1:" + closedPort + "/v1/transfers"));
            assertTrue(refused.getCause() instanceof java.net.ConnectException, String.valueOf(refused.getCause()));
            assertTrue(refused.getMessage().contains("Connection refused"), refused.getMessage());
            // connected, and the answer late: the request may have been taken (E901), not a failure to reach the core
            core.delayMs = 3_000;
            IOException late = assertThrows(IOException.class,
                    () -> status(client, "http://127.0.0.1:" + core.server.getLocalPort() + "/v1/transfers"));
            assertTrue(late instanceof SocketTimeoutException && !(late instanceof CoreNotReachedException), late.toString());
        }
    }

    /** The status code of a POST to the core. */
    private static int status(CloseableHttpClient client, String url) throws IOException {
        return client.execute(new HttpPost(url), response -> response.getCode());
    }

    /** An HTTP/1.1 server that answers every request 200 on a kept-alive connection, and closes them when told. */
    private static final class KeepAliveServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        final List<Socket> accepted = new CopyOnWriteArrayList<>();
        /** Milliseconds each answer waits before it is written. */
        volatile long delayMs;
        private final Thread acceptor = new Thread(this::accept, "keep-alive-server");

        KeepAliveServer() throws IOException {
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void accept() {
            try {
                while (true) {
                    Socket socket = server.accept();
                    accepted.add(socket);
                    Thread answering = new Thread(() -> answer(socket));
                    answering.setDaemon(true);
                    answering.start();
                }
            } catch (IOException closed) {
                // the server was closed
            }
        }

        private void answer(Socket socket) {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                int matched = 0;
                for (int b; (b = in.read()) >= 0; ) {
                    matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
                    if (matched == 4) {
                        if (delayMs > 0) {
                            Thread.sleep(delayMs); // the core taking its time over this answer
                        }
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        matched = 0;
                    }
                }
            } catch (IOException closed) {
                // the connection was closed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void closeConnections() throws IOException {
            for (Socket socket : accepted) {
                socket.close();
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            closeConnections();
        }
    }

    /** Calls a socket that reads one byte and closes: the call fails, the byte says how the pool spoke. */
    private static int firstByteSent(CloseableHttpClient client, String scheme) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> {
                try (Socket peer = server.accept(); InputStream in = peer.getInputStream()) {
                    return in.read();
                } catch (IOException e) {
                    return -2;
                }
            });
            HttpGet get = new HttpGet(scheme + "://127.0.0.1:" + server.getLocalPort() + "/v1/transfers/X");
            assertThrows(IOException.class, () -> client.execute(get, response -> response.getCode()));
            return first.get(10, TimeUnit.SECONDS);
        }
    }
}
