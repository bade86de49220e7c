package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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

    /** One file per story, each route of it in reading order: what an architect opens routes/ to read. */
    private static final Map<String, List<String>> STORIES = Map.of(
            "channel-path", List.of("receive-telegram", "claim-guid", "answer-known-guid", "retry-failed", "call-core", "record-result",
                    "reply-with-error-code"),
            "resolve", List.of("resolve-unknown", "run-resolve", "inquire-core"),
            "reprocess", List.of("reprocess-failed", "run-reprocess", "resend-failed"),
            "purge", List.of("purge-ledger", "run-purge"),
            "ledger-watch", List.of("watch-ledger-commit", "probe-ledger-commit", "watch-ledger-replication"),
            "admin-api", List.of("admin-health", "admin-metrics", "admin-ledger-row", "admin-ledger-history", "admin-check-guid", "admin-ledger-list", "admin-routes",
                    "admin-route-page", "admin-relay-picture", "admin-route-picture", "admin-route-yaml", "admin-no-such-route"),
            "route-configuration", List.of());

    @Test
    void everyRouteFileTellsOneStoryItsRoutesInReadingOrderEachWithADescription() throws Exception {
        Set<String> files;
        try (Stream<Path> list = Files.list(Path.of("routes"))) {
            files = list.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".camel.yaml"))
                    .map(n -> n.substring(0, n.length() - ".camel.yaml".length()))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(new TreeSet<>(STORIES.keySet()), files);
        assertTrue(files.size() <= 8, files.toString());
        // the relay reads the routes by name (no jar walk for a wildcard): every file of routes/ is named, once
        Properties built = new Properties();
        try (InputStream in = RouteFilesTest.class.getResourceAsStream("/application.properties")) {
            built.load(in);
        }
        List<String> named = new ArrayList<>();
        for (String location : built.getProperty("camel.main.routes-include-pattern").split(",")) {
            assertTrue(location.startsWith("classpath:routes/") && location.endsWith(".camel.yaml"), location);
            named.add(location.substring("classpath:routes/".length(), location.length() - ".camel.yaml".length()));
        }
        assertEquals(new ArrayList<>(files), named);
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free())
                .with("relay.jobs.enabled", "true").start()) {
            ModelCamelContext model = (ModelCamelContext) relay.relay().context();
            Set<String> rests = new TreeSet<>();
            for (RestDefinition rest : model.getRestDefinitions()) {
                rests.add(rest.getId());
                assertNotNull(rest.getDescriptionText(), rest.getId() + " has no description");
            }
            assertEquals(Set.of("admin-api"), rests);
            Map<String, List<String>> loaded = new TreeMap<>();
            for (RouteDefinition definition : model.getRouteDefinitions()) {
                String id = definition.getRouteId();
                String description;
                if (Boolean.TRUE.equals(definition.isRest())) {
                    // a REST verb is a route of its own, <rest id>-<name>, described by its verb, handing off to a direct: route
                    RestDefinition rest = definition.getRestDefinition();
                    assertTrue(id.startsWith(rest.getId() + "-"), id + " is not named after " + rest.getId());
                    VerbDefinition verb = rest.getVerbs().stream().filter(v -> id.equals(v.getRouteId()))
                            .findFirst().orElseThrow(() -> new AssertionError(id + " has no verb"));
                    description = verb.getDescriptionText();
                    assertTrue(verb.getTo().getUri().startsWith("direct:"), id + " does not hand off to a direct: route");
                } else {
                    String file = definition.getResource().getLocation();
                    file = file.substring(file.lastIndexOf('/') + 1).replace(".camel.yaml", "");
                    loaded.computeIfAbsent(file, f -> new ArrayList<>()).add(id);
                    description = definition.getDescriptionText();
                    assertTrue(id.matches("[a-z]+(-[a-z]+)*"), id + " is not kebab-case");
                }
                assertNotNull(description, id + " has no description");
                assertFalse(description.isBlank(), id + " has an empty description");
            }
            Map<String, List<String>> expected = new TreeMap<>(STORIES);
            expected.remove("route-configuration");
            // on this SQLite ledger: the replication watch is PostgreSQL's alone, not loaded (HeldBackRoutes)
            expected.put("ledger-watch", List.of("watch-ledger-commit", "probe-ledger-commit"));
            assertEquals(expected, loaded);
            assertNotNull(model.getRouteConfigurationDefinition("channel-replies"));
            // every SQL step runs on the relay's sql: component (reads) or ledger-write: component (writes, group-committed
            // on SQLite), with its named parameters parsed once
            int writes = 0;
            for (org.apache.camel.Endpoint endpoint : relay.relay().context().getEndpoints()) {
                org.apache.camel.component.sql.SqlEndpoint sql = null;
                if (endpoint instanceof org.apache.camel.component.sql.SqlEndpoint read) {
                    sql = read;
                } else if (endpoint instanceof dev.idempotentrelay.ledger.LedgerWriteEndpoint write) {
                    sql = write.statement();
                    writes++;
                }
                if (sql != null) {
                    assertTrue(sql.getPrepareStatementStrategy() instanceof dev.idempotentrelay.ledger.ParsedNamedParameters,
                            endpoint.getEndpointUri());
                }
            }
            assertEquals(12, writes, "ledger-write: endpoints");
            for (String id : List.of("receive-telegram", "resolve-unknown", "reprocess-failed", "purge-ledger", "watch-ledger-commit")) {
                assertEquals(true, relay.relay().context().getRouteController().getRouteStatus(id).isStarted(), id);
            }
        }
    }

    @Test
    void noJobsLoadsNoTimerButKeepsTheRunsForTheOneShotCommands() throws Exception {
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free()).start()) {
            for (String id : List.of("resolve-unknown", "reprocess-failed", "purge-ledger")) {
                assertNull(relay.relay().context().getRoute(id), id);
            }
            for (String id : List.of("receive-telegram", "run-resolve", "run-reprocess", "run-purge")) {
                assertEquals(true, relay.relay().context().getRouteController().getRouteStatus(id).isStarted(), id);
            }
        }
    }
}
