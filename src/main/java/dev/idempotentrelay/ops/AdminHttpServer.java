package dev.idempotentrelay.ops;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;

/**
 * The admin endpoint's HTTP server: a Vert.x server of camel-platform-http-vertx on its own host and port, which
 * serves the REST DSL routes of routes/admin-api.camel.yaml (camel.rest.component = platform-http). Camel Main
 * builds such a server itself only with camel-platform-http-main, which is not served here, so the relay adds it
 * to the context as Camel Main would: a service started before the routes, stopped after them. Unlike its parent,
 * it fails the start when it cannot listen (the parent only logs that), so that a relay never runs without the
 * admin endpoint it announces.
 */
public final class AdminHttpServer extends VertxPlatformHttpServer {

    public static final String BEAN = "adminHttpServer";

    private final String host;
    private final int port;

    private AdminHttpServer(VertxPlatformHttpServerConfiguration configuration) {
        super(configuration);
        this.host = configuration.getBindHost();
        this.port = configuration.getBindPort();
    }

    public static void addTo(CamelContext context, String host, int port) throws Exception {
        VertxPlatformHttpServerConfiguration configuration = new VertxPlatformHttpServerConfiguration();
        configuration.setBindHost(host);
        configuration.setBindPort(port);
        AdminHttpServer server = new AdminHttpServer(configuration);
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
    }
}
