package dev.idempotentrelay.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * new one instead of sending into a closed connection (what would be E901 instead of E902 on the channel path).
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
            assertEquals(200, (int) client.execute(new HttpPost(url), response -> response.getCode()));
            assertEquals(200, (int) client.execute(new HttpPost(url), response -> response.getCode()));
            assertEquals(1, core.accepted.size(), "the second call reused the first call's connection");

            core.closeConnections();
            assertEquals(200, (int) client.execute(new HttpPost(url), response -> response.getCode()));
            assertEquals(2, core.accepted.size(), "the connection the core closed was not reused");
        }
    }

    /** An HTTP/1.1 server that answers every request 200 on a kept-alive connection, and closes them when told. */
    private static final class KeepAliveServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        final List<Socket> accepted = new CopyOnWriteArrayList<>();
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

        private static void answer(Socket socket) {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                int matched = 0;
                for (int b; (b = in.read()) >= 0; ) {
                    matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
                    if (matched == 4) {
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        matched = 0;
                    }
                }
            } catch (IOException closed) {
                // the connection was closed
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
