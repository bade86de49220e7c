package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.TestCertificates;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 8 on the admin endpoint: with RELAY_ADMIN_TOKEN set every request but GET /health needs
 * {@code Authorization: Bearer <token>} (401 otherwise); a relay whose admin endpoint is to listen on a non-loopback
 * address does not start without a token; and neither the token nor a password shows in GET /routes.
 */
class AdminTokenTest {

    private static final String TOKEN = "admin-token-7c1e5d";

    @TempDir
    Path dir;

    private RelayUnderTest.Builder relay() {
        return RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free());
    }

    @Test
    void withATokenEveryRequestButGetHealthNeedsIt() throws Exception {
        try (RelayUnderTest relay = relay().environment(Map.of("RELAY_ADMIN_TOKEN", TOKEN)).start()) {
            AdminClient anonymous = relay.admin();
            assertEquals(200, anonymous.get("/health").statusCode());
            for (String path : List.of("/metrics", "/routes", "/ledger?state=DONE", "/ledger/0123456789ABCDEF0123456789ABCDEF", "/no-such-path",
                    "/", "/routes.svg", "/routes/claim-guid.svg", "/routes/claim-guid.yaml", "/routes/no-such-route.svg")) {
                HttpResponse<String> refused = anonymous.get(path);
                assertEquals(401, refused.statusCode(), path);
                assertEquals("Bearer", refused.headers().firstValue("WWW-Authenticate").orElse(null), path);
                assertEquals(401, anonymous.withToken("not-" + TOKEN).get(path).statusCode(), path);
                assertEquals(401, anonymous.withToken(TOKEN + "x").get(path).statusCode(), path);
                assertEquals(401, anonymous.withAuthorization(TOKEN).get(path).statusCode(), path);
                assertEquals(401, anonymous.withAuthorization("Basic " + TOKEN).get(path).statusCode(), path);
            }
            AdminClient admin = anonymous.withToken(TOKEN);
            assertEquals(200, admin.get("/metrics").statusCode());
            assertEquals(200, admin.get("/routes").statusCode());
            assertEquals(200, admin.get("/ledger?state=DONE").statusCode());
            assertEquals(404, admin.get("/ledger/0123456789ABCDEF0123456789ABCDEF").statusCode());
            assertEquals(404, admin.get("/no-such-path").statusCode());
            // the route pictures and their page, as every path but /health
            assertEquals(200, admin.get("/").statusCode());
            assertEquals(200, admin.get("/routes.svg").statusCode());
            assertEquals(200, admin.get("/routes/claim-guid.svg").statusCode());
            assertEquals(200, admin.get("/routes/claim-guid.yaml").statusCode());
            assertEquals(404, admin.get("/routes/no-such-route.svg").statusCode());
            assertEquals(200, anonymous.withAuthorization("bearer " + TOKEN).get("/metrics").statusCode());
            // /health stays open, with or without a header
            assertEquals(200, anonymous.withToken("wrong").get("/health").statusCode());
        }
    }

    @Test
    void withoutATokenTheLoopbackEndpointIsOpenAsBefore() throws Exception {
        try (RelayUnderTest relay = relay().start()) {
            assertEquals(200, relay.admin().get("/metrics").statusCode());
        }
    }

    @Test
    void aNonLoopbackAdminHostWithoutATokenDoesNotStart() throws Exception {
        Exception e = assertThrows(Exception.class, () -> relay().with("relay.admin.host", "0.0.0.0").start().close());
        assertEquals("the admin endpoint may listen on 0.0.0.0, which is not a loopback address, only with a token: "
                + "set the environment variable RELAY_ADMIN_TOKEN", Relay.rootMessage(e));
        try (RelayUnderTest relay = relay().with("relay.admin.host", "0.0.0.0").environment(Map.of("RELAY_ADMIN_TOKEN", TOKEN)).start()) {
            assertEquals(401, relay.admin().get("/metrics").statusCode());
            assertEquals(200, relay.admin().withToken(TOKEN).get("/metrics").statusCode());
        }
        // localhost is a loopback name
        try (RelayUnderTest relay = relay().with("relay.admin.host", "localhost").start()) {
            assertEquals(200, relay.admin().get("/health").statusCode());
        }
    }

    @Test
    void theRoutesShowNeitherTheTokenNorAPassword() throws Exception {
        Map<String, String> environment = new HashMap<>(TestCertificates.passwords());
        environment.put("RELAY_ADMIN_TOKEN", TOKEN);
        try (RelayUnderTest relay = relay().mutualTls().environment(environment).start()) {
            String routes = relay.admin().withToken(TOKEN).get("/routes").body();
            assertTrue(routes.contains("ssl=true") && routes.contains("needClientAuth=true") && routes.contains("sslContextParameters=#channelTls"),
                    "the listener's TLS options are shown: " + routes);
            assertFalse(routes.contains(TOKEN), "the token in /routes");
            assertFalse(routes.contains(TestCertificates.PASSWORD), "a password in /routes");
            String metrics = relay.admin().withToken(TOKEN).get("/metrics").body();
            assertFalse(metrics.contains(TOKEN) || metrics.contains(TestCertificates.PASSWORD));
        }
    }
}
