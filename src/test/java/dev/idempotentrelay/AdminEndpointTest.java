package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreAndRelayTest;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin endpoint through real HTTP, against a relay that has carried real traffic: a real socket, the real
 * core simulator over HTTP, a real SQLite file.
 */
class AdminEndpointTest extends CoreAndRelayTest {

    private AdminClient admin;

    @BeforeEach
    void openAdmin() {
        admin = relay.admin();
    }

    /** Sends each request on one connection and returns the replies, in order. */
    private List<byte[]> send(byte[]... requests) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            List<byte[]> replies = new java.util.ArrayList<>();
            for (byte[] request : requests) {
                replies.add(channel.send(request));
            }
            return replies;
        }
    }

    @Test
    void metricsCountWhatWasSentAndWhatTheRelayDidWithIt() throws Exception {
        String a = newGuid();
        String b = newGuid();
        String c = newGuid();
        String rejected = newGuid();
        String failing = newGuid();
        List<byte[]> replies = send(
                transfer(a), transfer(b), transfer(c),
                transfer(a), transfer(b), transfer(c),                                  // resends: stored replies
                Telegram.transferRequest(rejected, "MOB1", "0000111122223333", "2003004005006007", 500, "x"),
                transfer(failing, 700, "FAIL please"),
                transfer(a, 99, "other amount"),                                     // same GUID, other request
                transfer(newGuid(), 0, "zero"));                                     // invalid: no row
        assertEquals(List.of("0000", "0000", "0000", "0000", "0000", "0000", "B202", "E500", "E904", "E400"),
                replies.stream().map(Telegram::rspCode).toList());

        // a reply is counted once it is written: wait for the last one
        Await.until("10 replies counted", Duration.ofSeconds(10),
                () -> admin.metrics().entrySet().stream().filter(e -> e.getKey().startsWith("relay_replies_total"))
                        .mapToDouble(Map.Entry::getValue).sum() == 10);
        Map<String, Double> m = admin.metrics();
        assertEquals(6, m.get("relay_replies_total{code=\"0000\"}"));
        assertEquals(1, m.get("relay_replies_total{code=\"B202\"}"));
        assertEquals(1, m.get("relay_replies_total{code=\"E500\"}"));
        assertEquals(1, m.get("relay_replies_total{code=\"E904\"}"));
        assertEquals(1, m.get("relay_replies_total{code=\"E400\"}"));
        // the undecided states are counted at a scrape, DONE (millions of rows in a bank's ledger) is not
        assertEquals(null, m.get("relay_ledger_rows{state=\"DONE\"}"));
        assertEquals(0, m.get("relay_ledger_rows{state=\"UNKNOWN\"}"));
        assertEquals(0, m.get("relay_ledger_oldest_age_seconds{state=\"UNKNOWN\"}"));
        assertEquals(0, m.get("relay_ledger_failed_at_cap_rows"));
        assertTrue(m.get("relay_ledger_bytes") > 0, "the ledger's size: " + m.get("relay_ledger_bytes"));
        assertEquals(60, m.get("relay_setting{name=\"min-age\"}"));
        assertEquals(5, m.get("relay_setting{name=\"max-attempts\"}"));
        assertEquals(5, m.get("relay_state_transitions_total{from=\"none\",to=\"SENT\"}"));
        assertEquals(5, m.get("relay_state_transitions_total{from=\"SENT\",to=\"DONE\"}"));
        // the latency histogram counted exactly the POSTs the core received
        assertEquals(5, coreView.calls());
        assertEquals(5, m.get("relay_core_call_seconds_count{call=\"transfer\",outcome=\"answered\"}"));
        assertEquals(5, m.get("relay_core_call_seconds_bucket{call=\"transfer\",outcome=\"answered\",le=\"+Inf\"}"));
        assertEquals(0, m.get("relay_job_runs_total{job=\"resolve\"}"));

        // the timed work, run as the Quartz routes run it, counted with what each run did
        String neverArrived = newGuid();
        relay.ledger.insert(neverArrived, "UNKNOWN", "E901", transfer(neverArrived), null, 1, 3_600);
        String oldDone = newGuid();
        relay.ledger.insert(oldDone, "DONE", "0000", transfer(oldDone), new byte[] {'x'}, 1, 8 * 24 * 3_600);
        String atCap = newGuid();
        relay.ledger.insert(atCap, "FAILED", "E902", transfer(atCap), null, 5, 600);
        m = admin.metrics();
        assertEquals(1, m.get("relay_ledger_rows{state=\"UNKNOWN\"}"));
        double unknownAge = m.get("relay_ledger_oldest_age_seconds{state=\"UNKNOWN\"}");
        assertTrue(unknownAge >= 3_600 && unknownAge < 3_660, "the UNKNOWN row is an hour old: " + unknownAge);
        assertEquals(1, m.get("relay_ledger_rows{state=\"FAILED\"}"));
        assertEquals(1, m.get("relay_ledger_failed_at_cap_rows"));
        ProducerTemplate template = relay.relay().context().createProducerTemplate();
        try {
            assertEquals("resolve: 0 done, 1 failed, 0 kept", template.requestBody("direct:run-resolve", null, String.class));
            assertEquals("reprocess: 1 done, 0 failed, 0 unknown, 0 skipped",
                    template.requestBody("direct:run-reprocess", null, String.class));
            String purged = template.requestBody("direct:run-purge", null, String.class);
            assertTrue(purged.matches("purge: 1 deleted in 1 batch, \\d+\\.\\d s, \\d+\\.\\d s of it paused for other writers; 0 history rows past 90 days"), purged);
        } finally {
            template.stop();
        }
        m = admin.metrics();
        assertEquals(1, m.get("relay_job_runs_total{job=\"resolve\"}"));
        assertEquals(1, m.get("relay_job_runs_total{job=\"reprocess\"}"));
        assertEquals(1, m.get("relay_job_runs_total{job=\"purge\"}"));
        assertEquals(1, m.get("relay_job_rows_total{job=\"resolve\",outcome=\"failed\"}"));
        assertEquals(1, m.get("relay_job_rows_total{job=\"reprocess\",outcome=\"done\"}"));
        assertEquals(1, m.get("relay_job_rows_total{job=\"purge\",outcome=\"deleted\"}"));
        assertEquals(1, m.get("relay_state_transitions_total{from=\"UNKNOWN\",to=\"FAILED\"}"));
        assertEquals(1, m.get("relay_state_transitions_total{from=\"FAILED\",to=\"SENT\"}"));
        assertEquals(6, m.get("relay_state_transitions_total{from=\"SENT\",to=\"DONE\"}"));
        assertEquals(1, m.get("relay_state_transitions_total{from=\"DONE\",to=\"purged\"}"));
        assertEquals(1, m.get("relay_core_call_seconds_count{call=\"inquiry\",outcome=\"answered\"}"));
        assertEquals(6, m.get("relay_core_call_seconds_count{call=\"transfer\",outcome=\"answered\"}"));
        assertEquals(1, m.get("relay_purge_run_rows"));
        assertEquals(0, m.get("relay_purge_running"));
        assertEquals(0, m.get("relay_ledger_rows{state=\"UNKNOWN\"}"));
        assertEquals(1, m.get("relay_ledger_rows{state=\"FAILED\"}"));
        assertEquals(1, m.get("relay_ledger_failed_at_cap_rows"));
        assertEquals(6, coreView.calls());
    }

    @Test
    void aGuidsRowMatchesTheReplyTheChannelGot() throws Exception {
        String guid = newGuid();
        byte[] request = transfer(guid, 12_345, "rent");
        byte[] reply = send(request).get(0);
        assertEquals("0000", Telegram.rspCode(reply));

        JsonNode row = admin.json("/ledger/" + guid, 200);
        assertEquals(guid, row.get("guid").asText());
        assertEquals("DONE", row.get("state").asText());
        assertEquals("0000", row.get("rsp_code").asText());
        assertEquals(1, row.get("attempts").asInt());
        assertEquals(text(reply), row.get("reply").get("raw").asText());
        assertEquals(Telegram.field(reply, Telegram.CORE_REF, Telegram.CORE_REF_WIDTH), row.get("reply").get("core_ref").asText());
        assertEquals(Long.parseLong(Telegram.raw(reply, Telegram.BALANCE_AFTER, Telegram.BALANCE_WIDTH)),
                row.get("reply").get("balance_after").asLong());
        assertEquals(Telegram.raw(reply, Telegram.PROCESSED_AT, Telegram.PROCESSED_AT_WIDTH), row.get("reply").get("processed_at").asText());
        assertEquals(text(request), row.get("request").get("raw").asText());
        assertEquals("1002003004005006", row.get("request").get("from").asText());
        assertEquals("2003004005006007", row.get("request").get("to").asText());
        assertEquals(12_345, row.get("request").get("amount").asLong());
        assertEquals("rent", row.get("request").get("memo").asText());
        assertEquals("MOB1", row.get("request").get("channel").asText());

        assertEquals("no ledger row for guid " + "0".repeat(32), admin.json("/ledger/" + "0".repeat(32), 404).get("error").asText());
        assertEquals(400, admin.get("/ledger/not-a-guid").statusCode());
    }

    @Test
    void ledgerListsTheRowsOfAStateUpToTheLimit() throws Exception {
        Set<String> done = new TreeSet<>();
        for (int i = 0; i < 3; i++) {
            String guid = newGuid();
            done.add(guid);
            send(transfer(guid));
        }
        String unknown = newGuid();
        relay.ledger.insert(unknown, "UNKNOWN", "E901", transfer(unknown), null, 1, 30);

        JsonNode all = admin.json("/ledger?state=DONE", 200);
        assertEquals(done, guids(all));
        assertEquals(2, admin.json("/ledger?state=DONE&limit=2", 200).size());
        JsonNode unknownRows = admin.json("/ledger?state=UNKNOWN&limit=10", 200);
        assertEquals(Set.of(unknown), guids(unknownRows));
        assertEquals("E901", unknownRows.get(0).get("rsp_code").asText());
        assertTrue(unknownRows.get(0).get("reply").isNull());
        assertEquals(0, admin.json("/ledger?state=FAILED", 200).size());

        assertEquals(400, admin.get("/ledger?state=LOST").statusCode());
        assertEquals(400, admin.get("/ledger").statusCode());
        assertEquals(400, admin.get("/ledger?state=DONE&limit=0").statusCode());
        assertEquals(400, admin.get("/ledger?state=DONE&limit=1001").statusCode());
        assertEquals(400, admin.get("/ledger?state=DONE&limit=ten").statusCode());
    }

    @Test
    void healthIsReadyOnlyWithTheRoutesStartedAndTheLedgerWritable() throws Exception {
        JsonNode health = admin.json("/health", 200);
        assertEquals("UP", health.get("status").asText());
        assertEquals("UP", health.get("routes").asText());
        assertEquals("UP", health.get("ledger").asText());
        assertTrue(health.get("core").get("answeredLastCall").isNull(), health.toString());

        assertEquals("0000", Telegram.rspCode(send(transfer(newGuid())).get(0)));
        assertTrue(admin.json("/health", 200).get("core").get("answeredLastCall").asBoolean());

        // a route that should run and does not: not ready
        relay.relay().context().getRouteController().stopRoute("receive-telegram");
        health = admin.json("/health", 503);
        assertEquals("DOWN", health.get("status").asText());
        assertEquals("DOWN", health.get("routes").asText());
        assertEquals("UP", health.get("ledger").asText());
        assertTrue(health.get("checks").toString().contains("Route receive-telegram has status Stopped"), health.toString());
        relay.relay().context().getRouteController().startRoute("receive-telegram");
        assertEquals("UP", admin.json("/health", 200).get("status").asText());

        // another process holds the ledger's write lock past the busy timeout: not ready
        try (java.sql.Connection locker = java.sql.DriverManager.getConnection("jdbc:sqlite:" + relay.db);
                java.sql.Statement statement = locker.createStatement()) {
            statement.execute("BEGIN IMMEDIATE");
            health = admin.json("/health", 503);
            assertEquals("DOWN", health.get("ledger").asText());
            assertEquals("UP", health.get("routes").asText());
            assertTrue(health.get("checks").toString().contains("the ledger cannot be written"), health.toString());
            statement.execute("ROLLBACK");
        }
        assertEquals("UP", admin.json("/health", 200).get("status").asText());
    }

    @Test
    void aCoreThatDoesNotAnswerIsReportedButTheRelayStaysReady() throws Exception {
        core.close();
        String guid = newGuid();
        assertEquals("E902", Telegram.rspCode(send(transfer(guid)).get(0)));
        JsonNode health = admin.json("/health", 200);
        assertEquals("UP", health.get("status").asText());
        assertEquals(false, health.get("core").get("answeredLastCall").asBoolean());
        assertEquals("transfer", health.get("core").get("lastCall").asText());
        assertNotNull(health.get("core").get("error"));
        Map<String, Double> m = admin.metrics();
        assertEquals(1, m.get("relay_core_call_seconds_count{call=\"transfer\",outcome=\"not-reached\"}"));
        assertEquals(1, m.get("relay_state_transitions_total{from=\"SENT\",to=\"FAILED\"}"));
        assertEquals("FAILED", admin.json("/ledger/" + guid, 200).get("state").asText());
    }

    @Test
    void routesListsEveryRouteFileAsYamlWithLiveStatistics() throws Exception {
        int telegrams = 3;
        for (int i = 0; i < telegrams; i++) {
            send(transfer(newGuid()));
        }
        Set<String> files;
        try (Stream<Path> list = Files.list(Path.of("routes"))) {
            files = list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".camel.yaml"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        JsonNode report = admin.routes();
        Set<String> listed = new TreeSet<>();
        Map<String, JsonNode> routes = new HashMap<>();
        for (String section : List.of("routes", "rests", "routeConfigurations")) {
            for (JsonNode entry : report.get(section)) {
                listed.add(entry.get("file").asText());
                if (section.equals("routes")) {
                    routes.put(entry.get("id").asText(), entry);
                }
                // each one's YAML is YAML DSL naming its id
                JsonNode yaml = new YAMLMapper().readTree(entry.get("yaml").asText());
                assertTrue(yaml.isArray(), entry.get("id") + ": " + yaml);
                assertEquals(entry.get("id").asText(), yaml.get(0).elements().next().get("id").asText());
            }
        }
        assertEquals(files, listed);
        assertEquals(relay.relay().context().getRoutes().size(), routes.size());

        Await.until("the channel route counted its exchanges", Duration.ofSeconds(10),
                () -> exchangesOf(admin.routes(), "receive-telegram") == telegrams);
        JsonNode receive = routes.get("receive-telegram");
        assertEquals("channel-path.camel.yaml", receive.get("file").asText());
        assertEquals("Started", receive.get("status").asText());
        JsonNode callCore = entry(admin.routes(), "call-core");
        assertEquals(telegrams, callCore.get("statistics").get("exchangesTotal").asLong());
        assertEquals(0, callCore.get("statistics").get("exchangesFailed").asLong());
        assertTrue(callCore.get("statistics").get("maxProcessingTimeMs").asLong() >= callCore.get("statistics").get("meanProcessingTimeMs").asLong());
        assertTrue(callCore.get("yaml").asText().contains("id: post-transfer"));
    }

    private static long exchangesOf(JsonNode report, String id) {
        return entry(report, id).get("statistics").get("exchangesTotal").asLong();
    }

    private static JsonNode entry(JsonNode report, String id) {
        for (JsonNode route : report.get("routes")) {
            if (route.get("id").asText().equals(id)) {
                return route;
            }
        }
        throw new AssertionError("no route " + id + " in " + report);
    }

    private static Set<String> guids(JsonNode rows) {
        Set<String> guids = new TreeSet<>();
        rows.forEach(row -> guids.add(row.get("guid").asText()));
        return guids;
    }
}
