package dev.idempotentrelay;

import static dev.idempotentrelay.support.Refusal.assertNoStackTrace;
import static dev.idempotentrelay.support.Refusal.assertRefused;
import static dev.idempotentrelay.support.Refusal.assertRefusedStarting;
import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RoutesCopy;
import dev.idempotentrelay.telegram.Telegram;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar's refusals (SPEC section 7): a port in use named in one line, a bad --config file, settings that
 * could lose money from the environment or the file, no command; exit 2 and no stack trace on either stream. And the
 * order of the settings that a started relay shows: flag over RELAY_* over --config over the built-in value.
 */
class CommandLineRefusalsIT {

    private static final Duration START = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aPortInUseIsOneLineNamingThePortAndWhatWouldListenThereExit2NoStackTrace() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            String port = Integer.toString(taken.getLocalPort());
            assertRefused("idempotent-relay: run: port " + port + " is already in use (channel listener)",
                    JarProcess.run(dir, "run", "--port", port, "--admin-port", free(), "--no-jobs"));
            assertRefused("idempotent-relay: run: port " + port + " is already in use (admin endpoint)",
                    JarProcess.run(dir, "run", "--port", free(), "--admin-port", port, "--no-jobs"));
            assertRefused("idempotent-relay: run: port " + port + " is already in use (core simulator)",
                    JarProcess.run(dir, "run", "--port", free(), "--admin-port", free(), "--no-jobs", "--core-sim",
                            "--core", "http://localhost:" + port));
            // the same through the variables and the file
            Files.writeString(dir.resolve("relay.properties"), "relay.admin.port = " + port + "\n");
            assertRefused("idempotent-relay: run: port " + port + " is already in use (admin endpoint)",
                    JarProcess.in(dir).env("RELAY_PORT", free()).run("run", "--config", "relay.properties", "--no-jobs"));
        }
        String same = free();
        assertRefused("idempotent-relay: run: port " + same + " is set for both the channel listener and the admin endpoint",
                JarProcess.run(dir, "run", "--port", same, "--admin-port", same, "--no-jobs"));
    }

    @Test
    void aBindThatFailsInsideCamelsStartIsOneLineWithoutCamelsStackTrace() throws Exception {
        // a route of an edited folder listens on a port that another process holds: only Camel's start finds out
        Path routes = RoutesCopy.in(dir);
        try (ServerSocket taken = new ServerSocket(0)) {
            Files.writeString(routes.resolve("extra-listener.camel.yaml"), String.join("\n",
                    "- route:",
                    "    id: extra-listener",
                    "    from:",
                    "      uri: netty:tcp://0.0.0.0:" + taken.getLocalPort(),
                    "      parameters:",
                    "        sync: false",
                    "        textline: true",
                    "      steps:",
                    "        - log:",
                    "            message: \"${body}\"",
                    ""));
            JarProcess run = JarProcess.run(dir, "run", "--routes", routes.toString(), "--port", free(), "--admin-port", free(),
                    "--no-jobs");
            assertRefused("idempotent-relay: run: the relay did not start: Address already in use", run);
            assertTrue(run.output().stream().noneMatch(l -> l.contains(" ERROR ")), run.output().toString());
        }
    }

    @Test
    void aMissingConfigFileAndMoneyLosingSettingsFromTheEnvironmentOrTheFileAreOneLineExit2() throws Exception {
        assertRefused("idempotent-relay: run: --config absent.properties: no such file",
                JarProcess.run(dir, "run", "--config", "absent.properties"));
        assertRefused("idempotent-relay: resolve: --config absent.properties: no such file",
                JarProcess.run(dir, "resolve", "--config", "absent.properties", "--db", "x.db", "--core", "http://localhost:1",
                        "--min-age", "60"));
        assertRefusedStarting("idempotent-relay: run: RELAY_RESOLVE_MIN_AGE must be a whole number of at least 1, not '0': ",
                JarProcess.in(dir).env("RELAY_RESOLVE_MIN_AGE", "0").run("run"));
        Files.writeString(dir.resolve("relay.properties"), "relay.core.read-timeout-ms = 200000\n");
        String line = assertRefusedStarting("idempotent-relay: run: relay.resolve.sent-stale-after (120 s) must be above the read "
                + "timeout, relay.core.read-timeout-ms in relay.properties (200000 ms): ",
                JarProcess.run(dir, "run", "--config", "relay.properties"));
        assertTrue(line.endsWith(": a call still waiting for the core would be taken for one cut off by a crash, found missing, "
                + "and sent again"), line);
    }

    @Test
    void noCommandIsUsageOnStderrAndExit2() throws Exception {
        JarProcess none = JarProcess.run(dir);
        assertEquals(2, none.exitCode());
        assertEquals(List.of(), none.output());
        assertEquals("idempotent-relay: no command given", none.errors().get(0));
        assertTrue(none.errors().get(1).startsWith("usage: java -jar idempotent-relay.jar COMMAND"), none.errors().toString());
        assertNoStackTrace(none.output(), none.errors());
    }

    @Test
    void theRelayListensOnTheFlagsPortOverTheVariablesOverTheConfigFilesAndWarnsOfAShortMinAge() throws Exception {
        String filePort = free();
        String variablePort = free();
        String flagPort = free();
        String adminPort = free();
        Files.writeString(dir.resolve("relay.properties"), String.join("\n", "# the operator's settings",
                "relay.port = " + filePort, "relay.admin.port = " + adminPort, "relay.resolve.min-age = 2", ""));
        String[] run = {"run", "--config", "relay.properties", "--no-jobs", "--core", "http://localhost:" + free()};
        assertListensOn(filePort, adminPort, JarProcess.in(dir), run);
        assertListensOn(variablePort, adminPort, JarProcess.in(dir).env("RELAY_PORT", variablePort), run);
        String[] withFlag = Stream.concat(Stream.of(run), Stream.of("--port", flagPort)).toArray(String[]::new);
        List<String> out = assertListensOn(flagPort, adminPort, JarProcess.in(dir).env("RELAY_PORT", variablePort), withFlag);
        assertTrue(out.stream().anyMatch(l -> l.contains(" WARN  RunCommand - relay.resolve.min-age in relay.properties (2 s) is "
                + "under the read timeout, relay.core.read-timeout-ms (5000 ms): ")), out.toString());
    }

    /** Starts the relay, proves which port it answers on (a transfer, E902: no core listens), stops it; its output. */
    private static List<String> assertListensOn(String port, String adminPort, JarProcess.Launch launch, String... args)
            throws Exception {
        try (JarProcess relay = launch.start(args)) {
            relay.awaitLine("idempotent-relay: listening on port " + port + ",", START);
            try (Channel channel = Channel.open(Integer.parseInt(port))) {
                assertEquals("E902", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
            assertEquals("UP", new AdminClient("http://127.0.0.1:" + adminPort).json("/health", 200).get("status").asText());
            relay.terminate();
            return relay.output();
        }
    }

    private static String free() {
        return Integer.toString(Ports.free());
    }
}
