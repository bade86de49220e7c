package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.Route;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.rest.RestDefinition;
import org.apache.camel.model.rest.VerbDefinition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loads every YAML route of routes/ as the relay does: this is how the route files are validated. */
class RouteFilesTest {

    @TempDir
    Path dir;

    @Test
    void everyRouteFileLoadsWithItsIdEqualToItsFileNameAndADescription() throws Exception {
        Set<String> files;
        try (Stream<Path> list = Files.list(Path.of("routes"))) {
            files = list.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".camel.yaml"))
                    .map(n -> n.substring(0, n.length() - ".camel.yaml".length()))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertFalse(files.isEmpty());
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free())
                .with("relay.jobs.enabled", "true").start()) {
            ModelCamelContext model = (ModelCamelContext) relay.relay().context();
            // a file holds a route, a rest: definition (the REST DSL), or the route configuration; the id of a
            // route or a rest: definition equals its file name
            Set<String> rests = new TreeSet<>();
            for (RestDefinition rest : model.getRestDefinitions()) {
                rests.add(rest.getId());
                assertNotNull(rest.getDescriptionText(), rest.getId() + " has no description");
            }
            Set<String> loaded = new TreeSet<>();
            for (Route route : relay.relay().context().getRoutes()) {
                RouteDefinition definition = model.getRouteDefinition(route.getRouteId());
                String description;
                if (Boolean.TRUE.equals(definition.isRest())) {
                    // a REST verb is a route of its own, <rest id>-<name>, described by its verb, handing off to
                    // the direct: route of another file
                    RestDefinition rest = definition.getRestDefinition();
                    assertTrue(route.getRouteId().startsWith(rest.getId() + "-"), route.getRouteId() + " is not named after " + rest.getId());
                    VerbDefinition verb = rest.getVerbs().stream().filter(v -> route.getRouteId().equals(v.getRouteId()))
                            .findFirst().orElseThrow(() -> new AssertionError(route.getRouteId() + " has no verb"));
                    description = verb.getDescriptionText();
                    assertTrue(verb.getTo().getUri().startsWith("direct:"), route.getRouteId() + " does not hand off to a direct: route");
                } else {
                    loaded.add(route.getRouteId());
                    description = definition.getDescriptionText();
                }
                assertNotNull(description, route.getRouteId() + " has no description");
                assertFalse(description.isBlank(), route.getRouteId() + " has an empty description");
            }
            assertNotNull(model.getRouteConfigurationDefinition("channel-replies"));
            assertEquals(Set.of("admin-api"), rests);
            Set<String> expected = new TreeSet<>(files);
            expected.remove("route-configuration");
            expected.removeAll(rests);
            assertEquals(expected, loaded);
            // every SQL step runs on the relay's sql: component, with its named parameters parsed once
            for (org.apache.camel.Endpoint endpoint : relay.relay().context().getEndpoints()) {
                if (endpoint instanceof org.apache.camel.component.sql.SqlEndpoint sql) {
                    assertTrue(sql.getPrepareStatementStrategy() instanceof dev.idempotentrelay.ledger.ParsedNamedParameters,
                            endpoint.getEndpointUri());
                }
            }
            for (String id : List.of("receive-telegram", "resolve-unknown", "reprocess-failed", "purge-ledger")) {
                assertEquals(true, relay.relay().context().getRouteController().getRouteStatus(id).isStarted(), id);
            }
        }
    }

    @Test
    void noJobsLeavesTheTimedRoutesStopped() throws Exception {
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free()).start()) {
            for (String id : List.of("resolve-unknown", "reprocess-failed", "purge-ledger")) {
                assertEquals(false, relay.relay().context().getRouteController().getRouteStatus(id).isStarted(), id);
            }
            assertEquals(true, relay.relay().context().getRouteController().getRouteStatus("receive-telegram").isStarted());
        }
    }
}
