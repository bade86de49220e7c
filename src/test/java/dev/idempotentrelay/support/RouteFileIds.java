package dev.idempotentrelay.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The ids written in the route files, read from the YAML itself (not through Camel): for each route and route
 * configuration of {@code routes/}, its own id and every id inside it (its from, steps, branches, handlers).
 */
public final class RouteFileIds {

    private RouteFileIds() {
    }

    /** Route (or route configuration) id to the ids written inside it, in the files' order. */
    public static Map<String, Set<String>> of(Path routes) throws IOException {
        Map<String, Set<String>> ids = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(routes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".camel.yaml")).sorted().toList()) {
                for (JsonNode item : new YAMLMapper().readTree(file.toFile())) {
                    for (String kind : new String[] {"route", "routeConfiguration"}) {
                        if (item.has(kind)) {
                            Set<String> inside = new LinkedHashSet<>();
                            collect(item.get(kind), inside);
                            ids.put(item.get(kind).get("id").asText(), inside);
                        }
                    }
                }
            }
        }
        return ids;
    }

    private static void collect(JsonNode node, Set<String> ids) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field -> {
                if (field.getKey().equals("id") && field.getValue().isTextual()) {
                    ids.add(field.getValue().asText());
                } else {
                    collect(field.getValue(), ids);
                }
            });
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, ids));
        }
    }
}
