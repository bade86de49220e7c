package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher {@code bin/idempotent-relay}, installed beside the jar as an operator would: {@code train} makes the
 * ahead-of-time cache of this jar and JDK, the next start uses it (the JVM is told to fail if it cannot), a cache
 * older than the jar is left out with a line that says so, without {@code RELAY_JAVA_OPTS} the JVM gets the measured
 * options, and a missing jar is one line and exit 2.
 */
class LauncherIT {

    @TempDir
    Path dir;

    @Test
    void trainMakesTheCacheThatTheNextStartUsesAndACacheOlderThanTheJarIsLeftOut() throws Exception {
        JarProcess train = JarProcess.in(dir).withLauncher().within(Duration.ofSeconds(180)).run("train", "--seconds", "5");
        assertEquals(0, train.exitCode(), "train: " + train.output() + " " + train.errors());
        Path cache = onlyCache();
        assertTrue(Files.size(cache) > 1_000_000, cache + " is " + Files.size(cache) + " bytes");

        // the JVM must use the cache or not start at all (AOTMode=on on JDK 25 and later, -Xshare:on for CDS on 17),
        // and says on stdout that it opened it
        boolean aot = cache.toString().endsWith(".aot");
        String strict = aot ? "-XX:AOTMode=on -Xlog:aot" : "-Xshare:on -Xlog:cds";
        String opened = (aot ? "Opened AOT cache " : "Opened archive ") + cache + ".";
        int port = Ports.free();
        String[] run = runWithCoreSim(port);
        try (JarProcess relay = JarProcess.in(dir).withLauncher().env("RELAY_JAVA_OPTS", "-Xmx256m " + strict).start(run)) {
            relay.awaitLine("listening on port " + port, Duration.ofSeconds(60));
            assertTrue(relay.output().stream().anyMatch(line -> line.endsWith(opened)), "no '" + opened + "' in " + relay.output());
            try (Channel channel = Channel.open(port)) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
            assertEquals(List.of(), relay.errors());
            relay.terminate();
        }

        // a jar newer than its cache (a new build): the cache is left out, the relay starts without it
        Files.setLastModifiedTime(cache, FileTime.fromMillis(Files.getLastModifiedTime(dir.resolve(JarProcess.JAR_NAME)).toMillis() - 60_000));
        try (JarProcess relay = JarProcess.in(dir).withLauncher().env("RELAY_JAVA_OPTS", "-Xmx256m " + strict).start(run)) {
            relay.awaitLine("listening on port " + port, Duration.ofSeconds(60));
            assertEquals(List.of("idempotent-relay: launcher: " + cache + " is older than the jar and not used"
                    + " (bin/idempotent-relay train makes a new one)"), relay.errors());
            assertTrue(relay.output().stream().noneMatch(line -> line.contains(cache.toString())), relay.output().toString());
            relay.terminate();
        }
    }

    @Test
    void withoutRelayJavaOptsTheJvmGetsTheMeasuredHeapCollectorAndCompilerOptions() throws Exception {
        int port = Ports.free();
        try (JarProcess relay = JarProcess.in(dir).withLauncher().start(runWithCoreSim(port))) {
            relay.awaitLine("listening on port " + port, Duration.ofSeconds(60));
            String line = relay.commandLine().orElseThrow(() -> new AssertionError("the system shows no command line"));
            List<String> args = List.of(line.split(" "));
            for (String option : List.of("-Xms256m", "-Xmx256m", "-XX:+UseParallelGC", "-XX:MaxInlineLevel=9", "-XX:InlineSmallCode=1000")) {
                assertTrue(args.contains(option), option + " not in " + line);
            }
            // 6 compiler threads where the JVM would start fewer (under 16 CPUs, as nproc counts them)
            Process nproc = new ProcessBuilder("nproc").start();
            int cpus = Integer.parseInt(new String(nproc.getInputStream().readAllBytes()).trim());
            assertEquals(cpus < 16, args.contains("-XX:CICompilerCount=6"), cpus + " CPUs: " + line);
            relay.terminate();
        }
    }

    @Test
    void aMissingJarIsOneLineAndExit2() throws Exception {
        JarProcess launcher = JarProcess.in(dir).withLauncher().env("RELAY_JAR", dir.resolve("nowhere.jar").toString())
                .run("run", "--core-sim");
        assertEquals(2, launcher.exitCode());
        assertEquals(List.of("idempotent-relay: launcher: no jar at " + dir.resolve("nowhere.jar")
                + " (build it: mvn -B package -DskipTests, or set RELAY_JAR)"), launcher.errors());
    }

    /** {@code run} with the core simulator and a ledger in the folder, listening on {@code port}, every other port free. */
    private static String[] runWithCoreSim(int port) {
        return new String[] {"run", "--core-sim", "--core", "http://localhost:" + Ports.free(), "--db", "relay.db",
                "--port", Integer.toString(port), "--admin-port", Integer.toString(Ports.free()), "--no-jobs"};
    }

    private Path onlyCache() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> caches = files.filter(f -> f.getFileName().toString().matches("idempotent-relay\\.jdk\\d+\\.(aot|jsa)")).toList();
            assertEquals(1, caches.size(), "caches in " + dir + ": " + caches);
            return caches.get(0);
        }
    }
}
