package dev.idempotentrelay.ops;

import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;

/**
 * The admin endpoint's HTTP server: a Vert.x server of camel-platform-http-vertx on its own host and port, which
 * serves the REST DSL routes of routes/admin-api.camel.yaml (camel.rest.component = platform-http). Camel Main
 * builds such a server itself only with camel-platform-http-main, which is not served here, so the relay adds it
 * to the context as Camel Main would: a service started before the routes, stopped after them.
 */
public final class AdminHttpServer {

    public static final String BEAN = "adminHttpServer";

    private AdminHttpServer() {
    }

    public static void addTo(CamelContext context, String host, int port) throws Exception {
        VertxPlatformHttpServerConfiguration configuration = new VertxPlatformHttpServerConfiguration();
        configuration.setBindHost(host);
        configuration.setBindPort(port);
        VertxPlatformHttpServer server = new VertxPlatformHttpServer(configuration);
        // the platform-http engine finds the server (and so the port of its router) in the registry
        context.getRegistry().bind(BEAN, server);
        context.addService(server, true, true);
    }
}
