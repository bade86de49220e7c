package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.model.Model;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SendDefinition;
import org.apache.camel.spi.Resource;
import org.apache.camel.spi.ResourceAware;

/**
 * The pictures of one Camel model, the running relay's or one loaded from the route files: the whole relay, and one
 * for each route and route configuration, named by its id. The routes that the REST DSL makes of the admin endpoint's
 * verbs are drawn as the admin endpoint's arrows on the whole picture (each may still be asked for by its id).
 * {@link #ids()} lists the others in the order a reader follows a telegram: the channels' listener and every route it
 * hands off to, depth first, then its route configuration, then the timed routes, then the admin endpoint's.
 */
public final class RoutePictures {

    /** The name of the whole relay's picture ({@code relay.svg}); no route may have it. */
    public static final String RELAY = "relay";

    private final Model model;
    private final Map<String, RouteDefinition> routes = new LinkedHashMap<>();
    private final Map<String, RouteConfigurationDefinition> configurations = new LinkedHashMap<>();
    private final Map<String, String> routeOfDirect = new LinkedHashMap<>();

    public RoutePictures(Model model) {
        this.model = model;
        for (RouteDefinition route : model.getRouteDefinitions()) {
            routes.put(route.getRouteId(), route);
            Endpoint from = Endpoint.of(route.getInput().getUri());
            if (from.kind() == Endpoint.Kind.ROUTE) {
                routeOfDirect.put(from.name(), route.getRouteId());
            }
        }
        for (RouteConfigurationDefinition configuration : model.getRouteConfigurationDefinitions()) {
            configurations.put(configuration.getId(), configuration);
        }
    }

    /** The routes (but those of REST verbs) and route configurations, in reading order. */
    public List<String> ids() {
        Set<String> order = new LinkedHashSet<>();
        List<RouteDefinition> entries = new ArrayList<>(routes.values().stream()
                .filter(r -> Endpoint.of(r.getInput().getUri()).kind() != Endpoint.Kind.ROUTE).toList());
        entries.sort(Comparator.comparingInt(r -> Endpoint.of(r.getInput().getUri()).kind().ordinal()));
        for (RouteDefinition entry : entries) {
            Set<String> tree = new LinkedHashSet<>();
            follow(entry, tree);
            order.addAll(tree);
            for (String id : tree) {
                String configuration = routes.get(id).getRouteConfigurationId();
                if (configuration != null && configurations.containsKey(configuration)) {
                    order.add(configuration);
                }
            }
        }
        order.addAll(routes.keySet());
        order.addAll(configurations.keySet());
        order.removeIf(id -> routes.containsKey(id) && rest(routes.get(id)));
        return List.copyOf(order);
    }

    private void follow(RouteDefinition route, Set<String> tree) {
        if (!tree.add(route.getRouteId())) {
            return;
        }
        for (String target : handOffs(route.getOutputs(), new ArrayList<>())) {
            RouteDefinition next = routes.get(target);
            if (next != null) {
                follow(next, tree);
            }
        }
    }

    private List<String> handOffs(List<ProcessorDefinition<?>> steps, List<String> targets) {
        for (ProcessorDefinition<?> step : steps) {
            if (step instanceof SendDefinition<?> send) {
                Endpoint to = Endpoint.of(send.getUri());
                if (to.kind() == Endpoint.Kind.ROUTE && routeOfDirect.containsKey(to.name())) {
                    targets.add(routeOfDirect.get(to.name()));
                }
            }
            handOffs(step.getOutputs(), targets);
        }
        return targets;
    }

    /**
     * Every picture without counts, each linking to the others as files beside it: {@value #RELAY} first, then each
     * route and route configuration by its id, to its SVG.
     *
     * @throws IllegalArgumentException when a route or route configuration is named {@value #RELAY}
     */
    public Map<String, String> drawAll(String title) {
        if (has(RELAY)) {
            throw new IllegalArgumentException("a route or route configuration named " + RELAY
                    + " would be drawn over the whole relay's picture, " + RELAY + ".svg");
        }
        Map<String, String> svgs = new LinkedHashMap<>();
        svgs.put(RELAY, Svg.draw(relaySource(title, Counts.NONE, Links.SIBLING_FILES)));
        for (String id : ids()) {
            svgs.put(id, Svg.draw(source(id, Counts.NONE, Links.SIBLING_FILES)));
        }
        return svgs;
    }

    /** Whether {@code id} names a route or a route configuration of this model. */
    public boolean has(String id) {
        return routes.containsKey(id) || configurations.containsKey(id);
    }

    /** The PlantUML source of the picture of the route or route configuration {@code id}, or null when there is none. */
    public String source(String id, Counts counts, Links links) {
        Set<String> linkable = new LinkedHashSet<>(routes.keySet());
        linkable.addAll(configurations.keySet());
        RouteDefinition route = routes.get(id);
        if (route != null) {
            return RouteDiagram.of(route, fileOf(route), counts, links, linkable);
        }
        RouteConfigurationDefinition configuration = configurations.get(id);
        return configuration == null ? null : RouteDiagram.of(configuration, fileOf(configuration), counts, links, linkable);
    }

    /** The PlantUML source of the whole relay's picture. */
    public String relaySource(String title, Counts counts, Links links) {
        List<RelayDiagram.Route> drawn = new ArrayList<>();
        for (String id : ids()) {
            RouteDefinition route = routes.get(id);
            if (route != null) {
                drawn.add(new RelayDiagram.Route(route, fileOf(route)));
            }
        }
        return RelayDiagram.of(title, drawn, model.getRestDefinitions(), counts, links);
    }

    /** The name of the file {@code id} was loaded from, such as channel-path.camel.yaml, or null. */
    public String fileOf(String id) {
        return routes.containsKey(id) ? fileOf(routes.get(id)) : fileOf(configurations.get(id));
    }

    private static boolean rest(RouteDefinition route) {
        return Boolean.TRUE.equals(route.isRest());
    }

    /** The name of the file a definition was loaded from, such as claim-guid.camel.yaml, or null. */
    public static String fileOf(Object definition) {
        Resource resource = definition instanceof ResourceAware aware ? aware.getResource() : null;
        if (resource == null || resource.getLocation() == null) {
            return null;
        }
        String location = resource.getLocation();
        return location.substring(Math.max(location.lastIndexOf('/'), location.lastIndexOf(':')) + 1);
    }
}
