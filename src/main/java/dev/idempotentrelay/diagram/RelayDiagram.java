package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SendDefinition;
import org.apache.camel.model.ToDynamicDefinition;
import org.apache.camel.model.rest.RestDefinition;
import org.apache.camel.model.rest.VerbDefinition;

/**
 * The whole relay on one PlantUML picture: each route a box (grouped by the file it comes from) with its exchanges,
 * each {@code direct:} hand-off an arrow between two boxes, and the outside world as the endpoints the routes meet:
 * the channels' listener, the core, the ledger (each arrow named by the SQL files it runs), the timers and the admin
 * endpoint's REST verbs. Laid out by PlantUML's own layout engine (Smetana, Graphviz's dot in Java): no Graphviz needed.
 */
public final class RelayDiagram {

    /** One route for the picture: its definition and the file it was loaded from. */
    public record Route(RouteDefinition definition, String file) {
    }

    private final StringBuilder out = new StringBuilder();
    private final Map<String, String> outside = new LinkedHashMap<>();
    private final Map<String, Set<String>> arrows = new LinkedHashMap<>();

    private RelayDiagram() {
    }

    /** The PlantUML source of the picture of {@code routes} and the verbs of {@code rests}. */
    public static String of(String title, List<Route> routes, List<RestDefinition> rests, Counts counts, Links links) {
        RelayDiagram diagram = new RelayDiagram();
        Map<String, String> routeOfDirect = new LinkedHashMap<>();
        for (Route route : routes) {
            Endpoint from = Endpoint.of(route.definition().getInput().getUri());
            if (from.kind() == Endpoint.Kind.ROUTE) {
                routeOfDirect.put(from.name(), route.definition().getRouteId());
            }
        }
        diagram.line("@startuml");
        diagram.line("!pragma layout smetana");
        // a telegram travels from left to right; the routes that a verb or a timer starts stack up
        diagram.line("left to right direction");
        diagram.line("skinparam shadowing false");
        diagram.line("skinparam backgroundColor #FFFFFF");
        diagram.line("skinparam defaultTextAlignment center");
        diagram.line("skinparam ArrowColor #444444");
        diagram.line("skinparam RectangleBackgroundColor #F7F7F7");
        diagram.line("skinparam RectangleBorderColor #555555");
        diagram.line("skinparam PackageBorderColor #AAAAAA");
        diagram.line("skinparam PackageFontColor #6b6b6b");
        diagram.line("skinparam PackageFontStyle plain");
        diagram.line("skinparam DatabaseBackgroundColor #FFF1C9");
        diagram.line("skinparam CloudBackgroundColor #FCDCC8");
        diagram.line("skinparam NodeBackgroundColor #E4E4F7");
        diagram.line("skinparam ControlBackgroundColor #E4E4F7");
        diagram.line("title " + Label.bold(Label.text(title)));

        Map<String, List<Route>> byFile = new LinkedHashMap<>();
        routes.forEach(r -> byFile.computeIfAbsent(r.file() == null ? "" : r.file(), f -> new ArrayList<>()).add(r));
        for (Map.Entry<String, List<Route>> file : byFile.entrySet()) {
            boolean named = !file.getKey().isEmpty();
            if (named) {
                diagram.line("package \"" + Label.text(file.getKey()) + "\" {");
            }
            for (Route route : file.getValue()) {
                diagram.box(route.definition().getRouteId(), counts, links);
            }
            if (named) {
                diagram.line("}");
            }
        }
        for (Route route : routes) {
            diagram.arrowsOf(route.definition(), routeOfDirect);
        }
        for (RestDefinition rest : rests) {
            for (VerbDefinition verb : rest.getVerbs()) {
                String target = verb.getTo() == null ? null : routeOfDirect.get(Endpoint.of(verb.getTo().getUri()).name());
                if (target != null) {
                    String admin = diagram.outside("admin", "node", Label.bold(Label.text("admin endpoint")) + Label.NEWLINE
                            + Label.small(Label.text("HTTP, REST DSL " + (rest.getId() == null ? "" : rest.getId()))));
                    diagram.arrow(admin, routeAlias(target), verb.asVerb().toUpperCase(java.util.Locale.ROOT) + " " + verb.getPath());
                }
            }
        }
        diagram.outside.values().forEach(diagram::line);
        diagram.arrows.forEach((arrow, labels) -> diagram.line(arrow + (labels.isEmpty() ? ""
                : " : " + String.join(Label.NEWLINE, labels.stream().map(Label::text).toList()))));
        diagram.line("@enduml");
        return diagram.out.toString();
    }

    private void box(String routeId, Counts counts, Links links) {
        StringBuilder label = new StringBuilder(Label.bold(Label.text(routeId)));
        StepCount count = counts.route(routeId);
        if (count != null) {
            label.append(Label.NEWLINE).append(Label.small(Label.count(count)));
        }
        line("  rectangle \"" + label + "\" as " + routeAlias(routeId) + " [[" + links.to(routeId) + "]]");
    }

    /** The arrows of one route: from where its exchanges come in, and to every endpoint its steps send to. */
    private void arrowsOf(RouteDefinition route, Map<String, String> routeOfDirect) {
        String self = routeAlias(route.getRouteId());
        Endpoint from = Endpoint.of(route.getInput().getUri());
        switch (from.kind()) {
            case CHANNELS -> arrow(outside("channels", "node", Label.bold(Label.text("channels")) + Label.NEWLINE
                    + Label.small(Label.text("TCP, framed telegrams"))), self, from.detail());
            case TIMER -> arrow(outside(from.name(), "control", Label.bold(Label.text(from.name()))), self, from.detail());
            case OTHER -> arrow(outside(from.name(), "node", Label.text(from.name())), self, "");
            default -> {
                // direct: arrives by the arrows of the routes that hand off to it; rest: by the admin endpoint's verbs
            }
        }
        sends(route.getOutputs(), self, routeOfDirect);
    }

    private void sends(List<ProcessorDefinition<?>> steps, String self, Map<String, String> routeOfDirect) {
        for (ProcessorDefinition<?> step : steps) {
            String uri = step instanceof SendDefinition<?> send ? send.getUri()
                    : step instanceof ToDynamicDefinition toD ? toD.getUri() : null;
            if (uri != null) {
                Endpoint to = Endpoint.of(uri);
                switch (to.kind()) {
                    case ROUTE -> {
                        String target = routeOfDirect.get(to.name());
                        arrow(self, target != null ? routeAlias(target)
                                : outside(to.detail(), "node", Label.text(to.detail() + " (no route)")), "");
                    }
                    case LEDGER -> arrow(self, outside("ledger", "database", Label.bold(Label.text("ledger"))
                            + Label.NEWLINE + Label.small(Label.text("SQLite or PostgreSQL"))), to.detail());
                    case CORE -> arrow(self, outside(to.name(), "cloud", Label.bold(Label.text("core")) + Label.NEWLINE
                            + Label.small(Label.text(to.name().substring("core ".length())))), to.detail());
                    default -> arrow(self, outside(to.name(), "node", Label.text(to.name())), "");
                }
            }
            sends(step.getOutputs(), self, routeOfDirect);
        }
    }

    /** The alias of an endpoint of the outside world, declared once, after the routes. */
    private String outside(String key, String shape, String label) {
        String alias = "x_" + alias(key);
        outside.computeIfAbsent(alias, a -> shape + " \"" + label + "\" as " + a);
        return alias;
    }

    private void arrow(String from, String to, String label) {
        Set<String> labels = arrows.computeIfAbsent(from + " --> " + to, a -> new LinkedHashSet<>());
        if (!label.isBlank()) {
            labels.add(label);
        }
    }

    /** The alias of a route's box. */
    private static String routeAlias(String routeId) {
        return "r_" + alias(routeId);
    }

    private static String alias(String id) {
        return id.replaceAll("[^A-Za-z0-9]", "_");
    }

    private void line(String text) {
        out.append(text).append('\n');
    }
}
