package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.RouteFileIds;
import dev.idempotentrelay.support.SvgText;
import dev.idempotentrelay.telegram.Telegram;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The route pictures of the admin endpoint, through real HTTP, against a relay that carries real transfers (a real
 * socket, the core simulator, a SQLite file): every id of the route files is drawn, and the counts move with the
 * transfers, on the branch that each took.
 */
class RoutePicturesTest {

    @TempDir
    Path dir;

    private CoreSimulator core;
    private RelayUnderTest relay;
    private AdminClient admin;

    /** With its timed routes, so that every route of the files runs (their timers every hour: not during the test). */
    @BeforeEach
    void startCoreAndRelay() throws Exception {
        core = CoreSimulator.start(0, 1_000);
        relay = RelayUnderTest.on(dir.resolve("ledger.db"), core.url())
                .with("relay.jobs.enabled", "true").with("relay.jobs.every", "3600").with("relay.jobs.purge-every", "3600")
                .start();
        admin = relay.admin();
    }

    @AfterEach
    void stopCoreAndRelay() {
        relay.close();
        core.close();
    }

    private SvgText picture(String path) throws Exception {
        HttpResponse<String> response = admin.get(path);
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        assertEquals("image/svg+xml; charset=utf-8", response.headers().firstValue("Content-Type").orElse(null), path);
        assertTrue(response.body().startsWith("<svg") && response.body().endsWith("</svg>"), path + " is an SVG picture");
        return SvgText.of(response.body());
    }

    private long countUnder(String route, String id) throws Exception {
        OptionalLong count = picture("/routes/" + route + ".svg").countUnder(id);
        assertTrue(count.isPresent(), "a count under " + id + " on the picture of " + route);
        return count.getAsLong();
    }

    /** The ids of the route files by route, but for the route a relay loads on a PostgreSQL ledger alone (this one is on SQLite). */
    private static Map<String, Set<String>> loaded() throws Exception {
        Map<String, Set<String>> files = new java.util.TreeMap<>(RouteFileIds.of(Path.of("routes")));
        files.remove("watch-ledger-replication");
        return files;
    }

    @Test
    void everyIdOfEveryRouteFileIsOnThePictureOfItsRoute() throws Exception {
        Map<String, Set<String>> files = loaded();
        assertTrue(files.keySet().containsAll(List.of("receive-telegram", "claim-guid", "call-core", "channel-replies", "inquire-core")));
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Set<String>> route : files.entrySet()) {
            SvgText picture = picture("/routes/" + route.getKey() + ".svg");
            if (!picture.has(route.getKey())) {
                missing.add(route.getKey() + " (its own)");
            }
            route.getValue().stream().filter(id -> !picture.has(id)).forEach(id -> missing.add(route.getKey() + ": " + id));
        }
        assertEquals(List.of(), missing, "ids of the route files not drawn on their route's picture");
    }

    @Test
    void theWholeRelayShowsEveryRouteAndTheOutsideWorld() throws Exception {
        SvgText relayPicture = picture("/routes.svg");
        for (String route : loaded().keySet()) {
            if (!route.equals("channel-replies")) { // a route configuration: not a route with a box of its own
                assertTrue(relayPicture.has(route), "box of " + route);
            }
        }
        for (String outside : List.of("channels", "core", "ledger", "admin endpoint", "POST /v1/transfers", "write claim-new-guid", "GET /health")) {
            assertTrue(relayPicture.has(outside), outside + " on the whole relay's picture: " + relayPicture.texts());
        }
    }

    @Test
    void aDoneReplayCountsOnTheDoneBranchNotOnCoreAccepted() throws Exception {
        assertEquals(0, countUnder("answer-known-guid", "done"), "before any transfer");
        assertEquals(0, countUnder("call-core", "core-accepted"), "before any transfer");
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
            Await.until("the transfer counted on core-accepted", Duration.ofSeconds(10),
                    () -> countUnder("call-core", "core-accepted") == 1);
            assertEquals(0, countUnder("answer-known-guid", "done"), "a new transfer is no replay");
            assertEquals(0, countUnder("call-core", "core-rejected"), "the branch not taken");

            assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
            Await.until("the replay counted on done", Duration.ofSeconds(10), () -> countUnder("answer-known-guid", "done") == 1);
            assertEquals(1, countUnder("call-core", "core-accepted"), "the replay did not call the core");
            assertEquals(1, countUnder("claim-guid", "known"), "the replay took the known branch");
            assertEquals(0, countUnder("answer-known-guid", "in-flight"));
        }
        // every exchange went through the listener's steps, and the whole relay's box of the route counts them
        assertEquals(2, countUnder("receive-telegram", "check-telegram"));
        Await.until("the route counted its two exchanges", Duration.ofSeconds(10),
                () -> picture("/routes.svg").countUnder("receive-telegram").orElse(-1) == 2);
    }

    @Test
    void aFailureShowsOnTheStepWhereItHappened() throws Exception {
        core.close(); // the core is gone: the POST cannot connect, certainly not sent
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("E902", Telegram.rspCode(channel.send(transfer(newGuid()))));
        }
        Await.until("the failed POST drawn", Duration.ofSeconds(10), () -> picture("/routes/call-core.svg").texts()
                .stream().anyMatch(t -> t.equals("1 exchange, ") || t.equals("1 failed")));
        SvgText callCore = picture("/routes/call-core.svg");
        int post = callCore.texts().indexOf("post-transfer");
        assertTrue(post >= 0 && callCore.texts().subList(post, post + 4).contains("1 failed"),
                "post-transfer failed once: " + callCore.texts());
        assertEquals(1, callCore.countUnder("core-not-reached").orElse(-1), "the doCatch branch taken");
        assertEquals(0, callCore.countUnder("core-outcome-unknown").orElse(-1));
    }

    @Test
    void anUnknownRouteIsNotFound() throws Exception {
        for (String path : List.of("/routes/no-such-route.svg", "/routes/no-such-route.yaml")) {
            HttpResponse<String> response = admin.get(path);
            assertEquals(404, response.statusCode(), path);
            assertEquals("{\"error\": \"this relay has no route or route configuration of that id\"}", response.body());
        }
        HttpResponse<String> yaml = admin.get("/routes/claim-guid.yaml");
        assertEquals(200, yaml.statusCode());
        assertTrue(yaml.body().contains("id: claim-guid") && yaml.body().contains("claim-new-guid"), yaml.body());
        assertEquals(200, admin.get("/routes/channel-replies.yaml").statusCode());
    }

    @Test
    void thePageHoldsEveryPictureAndLinksEachToItsPictureAndYaml() throws Exception {
        HttpResponse<String> page = admin.get("/");
        assertEquals(200, page.statusCode());
        assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElse(null));
        for (String route : loaded().keySet()) {
            assertTrue(page.body().contains("<section id=\"" + route + "\" data-picture=\"/routes/" + route + ".svg\">"), route);
            assertTrue(page.body().contains("<a href=\"/routes/" + route + ".yaml\">YAML</a>"), route);
        }
        assertTrue(page.body().contains("<section id=\"relay\" data-picture=\"/routes.svg\">"));
        assertTrue(page.body().indexOf("id=\"receive-telegram\"") < page.body().indexOf("id=\"claim-guid\""), "in reading order");
        assertEquals(loaded().size() + 1, page.body().split("<svg ", -1).length - 1, "one picture each");
        assertTrue(!page.body().contains("<script src") && !page.body().contains("<link"), "nothing from outside the page");
    }
}
