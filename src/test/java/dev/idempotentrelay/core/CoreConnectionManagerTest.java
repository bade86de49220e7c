package dev.idempotentrelay.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.Test;

/**
 * The pool makes its TLS context only when an https core asks for it: a plain http core is called in clear text,
 * and an https core still gets a TLS handshake (its first byte on the wire is a TLS handshake record, 0x16).
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
