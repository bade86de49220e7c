package dev.idempotentrelay.ops;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The admin endpoint's bearer token (SPEC section 8, environment variable {@code RELAY_ADMIN_TOKEN}): every request
 * but {@code GET /health} must carry {@code Authorization: Bearer <token>}, else it is answered 401 before any route
 * sees it, whatever its path. The header is compared with the token in constant time. A Vert.x handler that
 * {@link AdminHttpServer} puts first on its router: the token lives in this object only, never in a property,
 * a placeholder or a route, so {@code /routes} and {@code --dump-routes} cannot show it.
 */
final class AdminTokenCheck implements Handler<RoutingContext> {

    private static final String OPEN_PATH = "/health";
    private static final String SCHEME = "Bearer ";
    private final byte[] expected;

    AdminTokenCheck(String token) {
        this.expected = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void handle(RoutingContext routing) {
        if (routing.request().method() == HttpMethod.GET && OPEN_PATH.equals(routing.normalizedPath())) {
            routing.next();
            return;
        }
        if (MessageDigest.isEqual(expected, bearerToken(routing.request().getHeader(HttpHeaders.AUTHORIZATION)))) {
            routing.next();
            return;
        }
        routing.response().setStatusCode(401)
                .putHeader("WWW-Authenticate", "Bearer")
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end("{\"error\": \"this request needs the header Authorization: Bearer <RELAY_ADMIN_TOKEN>\"}");
    }

    /**
     * The token of an {@code Authorization: Bearer <token>} header (the scheme in any case, RFC 7235), else nothing.
     * MessageDigest.isEqual then compares it in a time that does not depend on where it differs.
     */
    private static byte[] bearerToken(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return new byte[0];
        }
        return authorization.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
    }
}
