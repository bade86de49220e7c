package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.Model;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;

/**
 * Route files loaded into a Camel model that is never started: their routes, REST definitions and route
 * configurations as the relay would build them, without a listener, a ledger, a timer or a bean. The REST verbs
 * become routes of their own, as in the relay (camel.rest.inline-routes=false); placeholders stay as written.
 */
public final class RouteFiles implements AutoCloseable {

    private final DefaultCamelContext context;

    private RouteFiles(DefaultCamelContext context) {
        this.context = context;
    }

    /**
     * Loads the files that {@code patterns} name: Camel's resource patterns, comma separated, as in
     * {@code camel.main.routes-include-pattern} ({@code classpath:routes/a.camel.yaml}, {@code file:/dir/*.camel.yaml}).
     *
     * @throws IllegalArgumentException when no file matches, or a file is not a valid route file
     */
    public static RouteFiles load(String patterns) {
        DefaultCamelContext context = new DefaultCamelContext();
        try {
            context.getRestConfiguration().setInlineRoutes(false);
            context.build();
            List<Resource> files = new ArrayList<>();
            for (String pattern : patterns.split(",")) {
                Collection<Resource> found = PluginHelper.getPackageScanResourceResolver(context).findResources(pattern.strip());
                files.addAll(found.stream().sorted((a, b) -> a.getLocation().compareTo(b.getLocation())).toList());
            }
            if (files.isEmpty()) {
                throw new IllegalArgumentException("no route file in " + patterns);
            }
            PluginHelper.getRoutesLoader(context).loadRoutes(files);
            return new RouteFiles(context);
        } catch (IllegalArgumentException e) {
            context.stop();
            throw e;
        } catch (Exception e) {
            context.stop();
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    public Model model() {
        return context.getCamelContextExtension().getContextPlugin(Model.class);
    }

    @Override
    public void close() {
        context.stop();
    }
}
