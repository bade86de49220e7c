package dev.idempotentrelay.ops;

import dev.idempotentrelay.RelaySecrets;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;

/**
 * The admin endpoint's HTTP server: a Vert.x server of camel-platform-http-vertx on its own host and port, which
 * serves the REST DSL routes of routes/admin-api.camel.yaml (camel.rest.component = platform-http). Camel Main
 * builds such a server itself only with camel-platform-http-main, which is not served here, so the relay adds it
 * to the context as Camel Main would: a service started before the routes, stopped after them. Unlike its parent,
 * it fails the start when it cannot listen (the parent only logs that), so that a relay never runs without the
 * admin endpoint it announces.
 *
 * <p>With a token ({@code RELAY_ADMIN_TOKEN}) every request but {@code GET /health} must present it
 * ({@link AdminTokenCheck}, first on the router). Without one the endpoint may only listen on a loopback address:
 * a relay asked to open it wider without a token does not start (SPEC section 8).
 */
public final class AdminHttpServer extends VertxPlatformHttpServer {

    public static final String BEAN = "adminHttpServer";

    private final String host;
    private final int port;
    private final String token;

    private AdminHttpServer(VertxPlatformHttpServerConfiguration configuration, String token) {
        super(configuration);
        this.host = configuration.getBindHost();
        this.port = configuration.getBindPort();
        this.token = token;
    }

    /**
     * Adds the server for {@code host:port}, guarded by {@code token} when it is not null.
     *
     * @throws IllegalArgumentException when there is no token and {@code host} is not a loopback address
     */
    public static void addTo(CamelContext context, String host, int port, String token) throws Exception {
        if (token == null && !loopback(host)) {
            throw new IllegalArgumentException("the admin endpoint may listen on " + host + ", which is not a loopback address, "
                    + "only with a token: set the environment variable " + RelaySecrets.ADMIN_TOKEN);
        }
        VertxPlatformHttpServerConfiguration configuration = new VertxPlatformHttpServerConfiguration();
        configuration.setBindHost(host);
        configuration.setBindPort(port);
        AdminHttpServer server = new AdminHttpServer(configuration, token);
        // the platform-http engine finds the server (and so the port of its router) in the registry
        context.getRegistry().bind(BEAN, server);
        context.addService(server, true, true);
    }

    /**
     * Binds the address once itself before Vert.x is set up: the parent's failure to listen is only logged, never
     * thrown, and the relay would run without the endpoint it announces.
     */
    @Override
    protected void initializeServer() {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            // no cause chained: this message is the one line a user sees, not the bare "Address already in use"
            throw new IllegalStateException("the admin endpoint cannot listen on " + host + ":" + port + ": " + e.getMessage());
        }
        super.initializeServer();
        if (token != null) {
            // first on the router that the platform-http routes are added to later, so it runs before any of them
            VertxPlatformHttpRouter router = VertxPlatformHttpRouter.lookup(getCamelContext(), VertxPlatformHttpRouter.getRouterNameFromPort(port));
            router.route().order(Integer.MIN_VALUE).handler(new AdminTokenCheck(token));
        }
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (IOException e) {
            return false; // an address that does not resolve cannot be known to be loopback
        }
    }
}
