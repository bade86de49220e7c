package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Requests;
import dev.idempotentrelay.support.SvgText;
import dev.idempotentrelay.telegram.Telegram;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged jar, copied alone into an empty folder and started there as its own process, as a user runs it. */
class PackagedJarIT {

    private static final Duration START = Duration.ofSeconds(60);
    /** What Camel says when a jar that its shading broke lacks a component, a language or a type converter. */
    private static final List<String> MISSING_PIECES = List.of("No component found", "No language could be found",
            "No type converter", "NoTypeConversionAvailable", "ClassNotFoundException", "NoClassDefFoundError");

    @TempDir
    Path dir;

    @Test
    void theJarAloneInAnEmptyFolderRunsTheRelayATransferAOneShotCommandAndTheLedgerCommand() throws Exception {
        assertEquals(List.of(), names(dir));
        JarProcess.copyInto(dir);
        assertEquals(List.of(JarProcess.JAR_NAME), names(dir));
        int port = Ports.free();
        int corePort = Ports.free();
        int adminPort = Ports.free();
        String core = "http://localhost:" + corePort;
        String guid = newGuid();
        List<String> printed = new ArrayList<>();
        try (JarProcess relay = JarProcess.start(dir, "run", "--core-sim", "--port", Integer.toString(port), "--core", core,
                "--admin-port", Integer.toString(adminPort))) {
            relay.awaitLine("listening on port " + port, START);
            // the YAML routes of the jar, on netty, quartz and the REST DSL on platform-http-vertx
            List<String> started = relay.output();
            assertTrue(started.stream().anyMatch(l -> l.contains("Started receive-telegram (netty://tcp://0.0.0.0:" + port + ")")), started.toString());
            assertTrue(started.stream().anyMatch(l -> l.contains("Started resolve-unknown (quartz://relay-jobs/resolve-unknown)")), started.toString());
            assertTrue(started.stream().anyMatch(l -> l.contains("Started admin-api-health (rest://get:/health)")), started.toString());

            // a transfer: netty, sql on the SQLite ledger, http to the core, jackson both ways
            JarProcess send = JarProcess.run(dir, "send", "--port", Integer.toString(port), "--guid", guid, "--from", Requests.FROM,
                    "--to", Requests.TO, "--amount", "10000", "--memo", "lunch money", "--channel", "MOB1");
            assertEquals(0, send.exitCode(), send.errors().toString());
            assertTrue(send.output().contains("rsp_code      0000"), send.output().toString());

            // a one-shot command and the ledger command, on the ledger the relay is using (relay.db in that folder)
            JarProcess resolve = JarProcess.run(dir, "resolve", "--db", "relay.db", "--core", core, "--min-age", "1");
            assertEquals(0, resolve.exitCode(), resolve.errors().toString());
            assertEquals(List.of("resolve: 0 done, 0 failed, 0 kept"), resolve.output());
            JarProcess stats = JarProcess.run(dir, "ledger", "stats");
            assertEquals(0, stats.exitCode(), stats.errors().toString());
            assertTrue(stats.output().stream().anyMatch(l -> l.matches("DONE +1 .*")), stats.output().toString());

            // the admin endpoint: health checks (camel-health), metrics, a ledger row as JSON, the routes as YAML
            AdminClient admin = new AdminClient("http://127.0.0.1:" + adminPort);
            assertEquals("UP", admin.json("/health", 200).get("status").asText());
            assertEquals(1, admin.metric("relay_replies_total{code=\"0000\"}"));
            assertEquals("DONE", admin.json("/ledger/" + guid, 200).get("state").asText());
            assertTrue(admin.routes().get("routes").size() > 0);
            // the route pictures: PlantUML inside the jar draws them, with the transfer on its branch
            HttpResponse<String> callCore = admin.get("/routes/call-core.svg");
            assertEquals(200, callCore.statusCode(), callCore.body());
            assertEquals(1, SvgText.of(callCore.body()).countUnder("core-accepted").orElse(-1), callCore.body());
            assertTrue(SvgText.of(admin.get("/routes.svg").body()).has("receive-telegram"));
            assertEquals(200, admin.get("/").statusCode());
            relay.terminate();

            // the same pictures drawn from the jar's route files alone, without a relay
            JarProcess routes = JarProcess.run(dir, "routes", "--out", "pictures");
            assertEquals(0, routes.exitCode(), routes.errors().toString());
            assertEquals(List.of("routes: drew " + names(dir.resolve("pictures")).size() + " pictures into pictures"), routes.output());
            assertTrue(names(dir.resolve("pictures")).containsAll(List.of("relay.svg", "call-core.svg", "channel-replies.svg")));
            for (JarProcess process : List.of(relay, send, resolve, stats, routes)) {
                printed.addAll(process.output());
                printed.addAll(process.errors());
            }
        }
        for (String missing : MISSING_PIECES) {
            assertTrue(printed.stream().noneMatch(l -> l.contains(missing)), missing + ": " + printed);
        }
        assertTrue(printed.stream().noneMatch(l -> l.contains(" ERROR ") || l.contains(" WARN ")), printed.toString());
    }

    @Test
    void demoAnswersSendWith0000AndTheSameSendAgainGetsTheIdenticalReply() throws Exception {
        int port = Ports.free();
        int corePort = Ports.free();
        int adminPort = Ports.free();
        String guid = newGuid();
        try (JarProcess relay = JarProcess.start(dir, "run", "--core-sim", "--port", Integer.toString(port),
                "--core", "http://localhost:" + corePort, "--db", "demo.db", "--no-jobs", "--admin-port", Integer.toString(adminPort))) {
            relay.awaitLine("listening on port " + port, START);
            String[] send = {"send", "--port", Integer.toString(port), "--guid", guid, "--from", "1002003004005006",
                    "--to", "2003004005006007", "--amount", "10000", "--memo", "lunch money", "--channel", "MOB1"};
            JarProcess first = JarProcess.run(dir, send);
            JarProcess second = JarProcess.run(dir, send);
            assertEquals(0, first.exitCode(), first.errors().toString());
            List<String> firstOut = first.output();
            assertTrue(firstOut.contains("rsp_code      0000"), firstOut.toString());
            assertTrue(firstOut.stream().anyMatch(l -> l.startsWith("reply         0090TR01R" + guid + "MOB10000")), firstOut.toString());
            assertEquals(firstOut, second.output());
            assertEquals(1, new CoreClient("http://localhost:" + corePort).calls());
            assertEquals(1, new CoreClient("http://localhost:" + corePort).calls(guid));
            assertEquals("DONE", new LedgerFile(dir.resolve("demo.db")).row(guid).get("state"));

            // the packaged jar's admin endpoint answers
            AdminClient admin = new AdminClient("http://127.0.0.1:" + adminPort);
            JsonNode health = admin.json("/health", 200);
            assertEquals("UP", health.get("status").asText());
            assertTrue(health.get("core").get("answeredLastCall").asBoolean(), health.toString());
            Await.until("both replies counted", Duration.ofSeconds(10), () -> admin.metric("relay_replies_total{code=\"0000\"}") == 2);
            assertEquals(1, admin.metric("relay_core_call_seconds_count{call=\"transfer\",outcome=\"answered\"}"));
            assertEquals("DONE", admin.json("/ledger/" + guid, 200).get("state").asText());
            assertTrue(admin.routes().get("routes").size() > 0);

            // one INFO line per transfer: state change, reply code, core time, accounts masked
            relay.awaitLine("DONE unchanged, answered 0000", Duration.ofSeconds(10));
            List<String> lines = relay.output().stream().filter(l -> l.contains(" INFO  receive-telegram [guid " + guid + "] ")).toList();
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains("- guid " + guid + ": none -> SENT -> DONE, answered 0000, core "), lines.get(0));
            assertTrue(lines.get(0).endsWith(" ms, channel MOB1 from=************5006 to=************6007 amount=10000"), lines.get(0));
            assertTrue(lines.get(1).endsWith("- guid " + guid + ": DONE unchanged, answered 0000, core not called, channel MOB1 "
                    + "from=************5006 to=************6007 amount=10000"), lines.get(1));
        }
    }

    @Test
    void aTimedRunLogsItsSummaryOnlyWhenItHandledARow() throws Exception {
        int port = Ports.free();
        int adminPort = Ports.free();
        // no core listens there: the transfer is FAILED/E902, which every reprocess run tries again; resolve has nothing to do
        try (JarProcess relay = JarProcess.start(dir, "run", "--port", Integer.toString(port), "--core",
                "http://localhost:" + Ports.free(), "--db", "jobs.db", "--every", "1", "--admin-port", Integer.toString(adminPort))) {
            relay.awaitLine("listening on port " + port, START);
            try (Channel channel = Channel.open(port)) {
                assertEquals("E902", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
            relay.awaitLine("reprocess: 0 done, 1 failed, 0 unknown, 0 skipped", Duration.ofSeconds(20));
            AdminClient admin = new AdminClient("http://127.0.0.1:" + adminPort);
            Await.until("three resolve runs", Duration.ofSeconds(20), () -> admin.metric("relay_job_runs_total{job=\"resolve\"}") >= 3);
            List<String> out = relay.output();
            assertTrue(out.stream().noneMatch(l -> l.contains(" resolve-unknown - resolve: ")), "an idle resolve run logged: " + out);
            assertTrue(out.stream().noneMatch(l -> l.contains(" purge-ledger - purge: ")), "an idle purge run logged: " + out);
        }
    }

    @Test
    void everyLogLineOfATransferCarriesItsGuidWithTheAccountsMaskedAndDumpRoutesPrintsTheRoutes() throws Exception {
        int port = Ports.free();
        int adminPort = Ports.free();
        String guid = newGuid();
        // no core listens there: the transfer is E902, which logs a WARN line on its way as well
        try (JarProcess relay = JarProcess.start(dir, "run", "--port", Integer.toString(port), "--core",
                "http://localhost:" + Ports.free(), "--db", "logs.db", "--no-jobs", "--admin-port", Integer.toString(adminPort),
                "--dump-routes")) {
            relay.awaitLine("listening on port " + port, START);
            try (Channel channel = Channel.open(port)) {
                assertEquals("E902", Telegram.rspCode(channel.send(transfer(guid))));
                // then a frame the decoder refuses, on the same connection (so on the thread that served the transfer):
                // its WARN line comes after the transfer is done and carries no GUID
                channel.writeRaw("LLLL".getBytes(StandardCharsets.US_ASCII));
                assertTrue(channel.closedByRelay(), "the relay kept a connection open after an unreadable frame");
            }
            relay.awaitLine("answered E902", Duration.ofSeconds(10));
            relay.awaitLine("Unreadable frame from", Duration.ofSeconds(10));
            String unreadable = relay.output().stream().filter(l -> l.contains("Unreadable frame from")).findFirst().orElseThrow();
            assertFalse(unreadable.contains("[guid "), "a line after the transfer still carries a GUID: " + unreadable);
            List<String> out = relay.output();
            assertTrue(out.stream().anyMatch(l -> l.contains("- route:")) && out.stream().anyMatch(l -> l.contains("id: receive-telegram"))
                    && out.stream().anyMatch(l -> l.contains("- rest:")), "--dump-routes printed no routes: " + out);

            List<String> mentions = out.stream().filter(l -> l.contains(guid)).toList();
            assertEquals(2, mentions.size(), mentions.toString());
            for (String line : mentions) {
                assertTrue(line.contains(" [guid " + guid + "] - "), "no GUID in the MDC part of: " + line);
            }
            assertTrue(mentions.get(0).contains(" WARN  call-core [guid " + guid + "] - guid " + guid + ": core not reached"), mentions.get(0));
            String info = mentions.get(1);
            assertTrue(info.contains(" INFO  receive-telegram [guid " + guid + "] - guid " + guid
                    + ": none -> SENT -> FAILED, answered E902, core "), info);
            assertTrue(info.endsWith(" ms, not-reached, channel MOB1 from=************5006 to=************6007 amount=10000"), info);
            assertTrue(out.stream().noneMatch(l -> l.contains(Requests.FROM) || l.contains(Requests.TO)),
                    "an account number in the log");
            JsonNode health = new AdminClient("http://127.0.0.1:" + adminPort).json("/health", 200);
            assertEquals(false, health.get("core").get("answeredLastCall").asBoolean(), health.toString());
        }
    }

    @Test
    void relayKilledMidCallKeepsItsClaimAndResolveSettlesTheStaleSentByInquiry() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 3_000)) {
            CoreClient coreView = new CoreClient(core.url());
            int port = Ports.free();
            String[] run = {"run", "--port", Integer.toString(port), "--core", core.url(), "--db", "ledger.db",
                    "--no-jobs", "--read-timeout-ms", "30000", "--admin-port", Integer.toString(Ports.free())};
            String guid = newGuid();
            byte[] request = transfer(guid, 10_000, "SLOW lunch");
            LedgerFile ledger = new LedgerFile(dir.resolve("ledger.db"));
            try (JarProcess relay = JarProcess.start(dir, run)) {
                relay.awaitLine("listening on port " + port, START);
                Channel channel = Channel.open(port);
                channel.write(request);
                Await.until("the core received the POST", Duration.ofSeconds(20), () -> coreView.calls(guid) == 1);
                relay.kill();
                channel.close();
            }
            Map<String, Object> row = ledger.row(guid);
            assertEquals("SENT", row.get("state"));
            assertEquals(1, ((Number) row.get("attempts")).intValue());
            assertEquals("ok", ledger.queryString("PRAGMA integrity_check"));

            try (JarProcess relay = JarProcess.start(dir, run); Channel channel = waitForRelay(relay, port)) {
                assertEquals("E903", Telegram.rspCode(channel.send(request)));

                Await.until("the core applied the transfer it got", Duration.ofSeconds(20), () -> coreView.inquiryStatus(guid) == 200);
                // the one-shot resolve, against the ledger that the restarted relay is using
                JarProcess resolve = JarProcess.run(dir, "resolve", "--db", "ledger.db", "--core", core.url(),
                        "--min-age", "1", "--sent-stale-after", "1");
                assertEquals(0, resolve.exitCode(), resolve.errors().toString());
                assertEquals(List.of("resolve: 1 done, 0 failed, 0 kept, 1 stale SENT made UNKNOWN"), resolve.output());
                assertEquals("DONE", ledger.row(guid).get("state"));

                byte[] reply = channel.send(request);
                assertEquals("0000", Telegram.rspCode(reply));
                assertArrayEquals((byte[]) ledger.row(guid).get("response"), reply);
            }
            assertEquals(1, coreView.calls(guid));
            assertEquals(1, coreView.calls());
        }
    }

    @Test
    void sigtermFinishesRecordsAndAnswersTheCallInFlightThenExits() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 2_000)) {
            CoreClient coreView = new CoreClient(core.url());
            int port = Ports.free();
            String guid = newGuid();
            try (JarProcess relay = JarProcess.start(dir, "run", "--port", Integer.toString(port), "--core", core.url(),
                    "--db", "ledger.db", "--no-jobs");
                    Channel channel = waitForRelay(relay, port)) {
                channel.write(transfer(guid, 10_000, "SLOW lunch"));
                Await.until("the core received the POST", Duration.ofSeconds(20), () -> coreView.calls(guid) == 1);
                relay.terminate();
                byte[] reply = dev.idempotentrelay.wire.Frames.read(channel.input());
                assertEquals("0000", Telegram.rspCode(reply));
            }
            LedgerFile ledger = new LedgerFile(dir.resolve("ledger.db"));
            assertEquals("DONE", ledger.row(guid).get("state"));
            assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE state = 'SENT'"));
        }
    }

    @Test
    void sigtermEndsThePurgeCommandAfterTheBatchInHandWithItsSummaryAndTheNextRunGoesOn() throws Exception {
        // a ledger with more due rows than a run deletes before the stop
        org.sqlite.SQLiteDataSource file = new org.sqlite.SQLiteDataSource();
        file.setUrl("jdbc:sqlite:" + dir.resolve("ledger.db"));
        new dev.idempotentrelay.ledger.LedgerMigrations(file, dev.idempotentrelay.ledger.LedgerDialect.SQLITE).migrate(line -> { });
        LedgerFile ledger = new LedgerFile(dir.resolve("ledger.db"));
        int due = 100_000;
        ledger.fill("OLDDONE", due, "DONE", "0000", 8 * 24 * 3_600);
        ledger.fill("NEWDONE", 1_000, "DONE", "0000", 24 * 3_600);
        Map<String, String> batchesOf50 = Map.of("RELAY_JOBS_BATCH_SIZE", "50");
        try (JarProcess purge = JarProcess.start(dir, batchesOf50, "purge", "--db", "ledger.db", "--days", "7")) {
            Await.until("the purge's first batches", Duration.ofSeconds(60),
                    () -> ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLDDONE%'") <= due - 500);
            assertEquals(143, purge.terminate(), "ended by the signal: " + purge.output() + purge.errors());
            long left = ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLDDONE%'");
            assertTrue(left > 0, "the stop ended the run before its end");
            assertEquals(0, left % 50, "whole batches were committed, none in part: " + left + " left");
            // what it did is printed, as at the end of a whole run
            String summary = "purge: " + (due - left) + " deleted in " + (due - left) / 50 + " batches, ";
            assertTrue(purge.output().stream().anyMatch(line -> line.startsWith(summary)), summary + " in " + purge.output() + purge.errors());
            JarProcess rest = JarProcess.run(dir, batchesOf50, "purge", "--db", "ledger.db", "--days", "7");
            assertEquals(0, rest.exitCode(), rest.errors().toString());
            String restSummary = "purge: " + left + " deleted in " + (left / 50 + 1) + " batches, ";
            assertTrue(rest.output().stream().anyMatch(line -> line.startsWith(restSummary)), restSummary + " in " + rest.output());
        }
        assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLDDONE%'"));
        assertEquals(1_000, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'NEWDONE%'"));
    }

    @Test
    void benchLeavesTheRepliesToItsWarmUpOutOfItsSummary() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 2_000)) {
            int port = Ports.free();
            try (JarProcess relay = JarProcess.start(dir, "run", "--port", Integer.toString(port), "--core", core.url(),
                    "--db", "bench.db", "--no-jobs", "--admin-port", Integer.toString(Ports.free()))) {
                relay.awaitLine("listening on port " + port, START);
                JarProcess bench = JarProcess.run(dir, "bench", "--port", Integer.toString(port), "--connections", "2",
                        "--warmup", "1", "--duration", "1");
                assertEquals(0, bench.exitCode(), bench.errors().toString());
                List<String> out = bench.output();
                String first = out.stream().filter(l -> l.matches(" +1s +\\d+ replies .*")).findFirst().orElseThrow();
                assertTrue(first.endsWith("(warm-up)"), out.toString());
                assertTrue(out.stream().anyMatch(l -> l.matches(" +2s +\\d+ replies +\\d+/s")), out.toString());
                String summary = out.stream().filter(l -> l.startsWith("connections 2, duration ")).findFirst().orElseThrow();
                assertTrue(summary.endsWith(" s after a warm-up of 1 s, resend ratio 0.00"), summary);
                long warmupReplies = Long.parseLong(first.trim().split(" +")[1]);
                String throughput = out.stream().filter(l -> l.startsWith("throughput ")).findFirst().orElseThrow();
                long counted = Long.parseLong(throughput.replaceAll(".*\\((\\d+) replies\\)$", "$1"));
                assertTrue(out.contains("codes       {0000=" + counted + "}"), out.toString());
                // every transfer of the run reached the core once; those answered in the warm-up second are not counted
                long posts = new CoreClient(core.url()).calls();
                assertTrue(warmupReplies > 0 && counted > 0, out.toString());
                assertTrue(counted <= posts - warmupReplies, "counted " + counted + " of " + posts + " POSTs, "
                        + warmupReplies + " of them answered in the warm-up: " + out);
            }
        }
    }

    @Test
    void badArgumentsAndAnUnusableLedgerAreOneLineAndExit2() throws Exception {
        JarProcess badPort = JarProcess.run(dir, "run", "--port", "abc");
        assertEquals(2, badPort.exitCode());
        assertEquals(List.of("idempotent-relay: run: --port must be a whole number of at least 1, not 'abc'"), badPort.errors());

        JarProcess unknownFlag = JarProcess.run(dir, "run", "--colour", "blue");
        assertEquals(2, unknownFlag.exitCode());
        assertEquals(List.of("idempotent-relay: run: unknown flag --colour"), unknownFlag.errors());

        JarProcess noFolder = JarProcess.run(dir, "run", "--port", Integer.toString(Ports.free()), "--no-jobs",
                "--admin-port", Integer.toString(Ports.free()),
                "--db", dir.resolve("missing-folder/ledger.db").toString());
        assertEquals(2, noFolder.exitCode());
        List<String> lines = noFolder.errors();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("idempotent-relay: run: cannot use ledger "), lines.get(0));

        JarProcess noGuid = JarProcess.run(dir, "send", "--from", "A", "--to", "B", "--amount", "1");
        assertEquals(2, noGuid.exitCode());
        assertEquals(List.of("idempotent-relay: send: --guid is required"), noGuid.errors());
    }

    private static List<String> names(Path folder) throws Exception {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static Channel waitForRelay(JarProcess relay, int port) throws Exception {
        relay.awaitLine("listening on port " + port, START);
        return Channel.open(port);
    }
}
