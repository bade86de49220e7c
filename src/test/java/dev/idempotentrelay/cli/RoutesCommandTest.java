package dev.idempotentrelay.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.RouteFileIds;
import dev.idempotentrelay.support.RoutesCopy;
import dev.idempotentrelay.support.SvgText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routes}: an architect edits a copy of the route files and sees the edit drawn before it runs, no relay
 * started; bad arguments and a broken route file are one line and exit 2.
 */
class RoutesCommandTest {

    @TempDir
    Path dir;

    @Test
    void anEditedRouteIsDrawnFromItsFileWithoutStartingIt() throws Exception {
        Path routes = RoutesCopy.in(dir);
        Path purge = routes.resolve("purge.camel.yaml");
        String before = "                    - bean:\n                        id: count-done-purged";
        String yaml = Files.readString(purge);
        assertTrue(yaml.contains(before), yaml);
        Files.writeString(purge, yaml.replace(before, "                    - log:\n                        id: say-what-was-purged\n"
                + "                        message: \"purged ${header.CamelSqlUpdateCount}\"\n" + before));
        Path out = dir.resolve("pictures");
        OneShot drew = OneShot.run("routes", "--routes", routes.toString(), "--out", out.toString());
        assertEquals(0, drew.exitCode, drew.toString());
        assertEquals(List.of("routes: drew " + (RouteFileIds.of(routes).size() + 1) + " pictures into " + out), drew.out);
        SvgText runPurge = SvgText.of(Files.readString(out.resolve("run-purge.svg")));
        assertTrue(runPurge.has("say-what-was-purged") && runPurge.has("log INFO: purged ${header.CamelSqlUpdateCount}"),
                runPurge.texts().toString());
        assertTrue(runPurge.texts().indexOf("say-what-was-purged") < runPurge.texts().indexOf("count-done-purged"), "in order");
        // the hand-off to run-purge links to its picture, beside it
        assertTrue(Files.readString(out.resolve("purge-ledger.svg")).contains("href=\"run-purge.svg\""));
        assertTrue(Files.readString(out.resolve("relay.svg")).contains("href=\"run-purge.svg\""));
        assertFalse(Files.exists(dir.resolve("relay.db")) || Files.exists(Path.of("relay.db")), "no ledger made");
    }

    @Test
    void badArgumentsAndABrokenRouteFileAreOneLineAndExit2() throws Exception {
        assertRefused("idempotent-relay: routes: unknown flag --colour", OneShot.run("routes", "--colour", "blue"));
        assertRefused("idempotent-relay: routes: --out needs a value", OneShot.run("routes", "--out"));
        assertRefused("idempotent-relay: routes: --routes " + dir.resolve("none") + " is not a folder",
                OneShot.run("routes", "--routes", dir.resolve("none").toString()));
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertRefused("idempotent-relay: routes: --out " + file + " is not a folder", OneShot.run("routes", "--out", file.toString()));

        Path routes = Files.createDirectory(dir.resolve("broken"));
        Files.writeString(routes.resolve("broken.camel.yaml"), """
                - route:
                    id: broken
                    from:
                      uri: direct:broken
                      steps:
                        - no-such-step: {}
                """);
        assertRefused("idempotent-relay: routes: the route files cannot be read: Unknown node id: no-such-step in file:"
                + routes.toRealPath().resolve("broken.camel.yaml") + ", line 6, column 11",
                OneShot.run("routes", "--routes", routes.toString(), "--out", dir.resolve("out").toString()));

        Files.writeString(routes.resolve("broken.camel.yaml"), """
                - route:
                    id: relay
                    from:
                      uri: direct:relay
                      steps:
                        - log:
                            message: hello
                """);
        assertRefused("idempotent-relay: routes: a route or route configuration named relay would be drawn over the whole "
                + "relay's picture, relay.svg", OneShot.run("routes", "--routes", routes.toString(), "--out", dir.resolve("out").toString()));
    }

    private static void assertRefused(String line, OneShot run) {
        assertEquals(2, run.exitCode, run.toString());
        assertEquals(List.of(line), run.err, run.toString());
        assertEquals(List.of(), run.out, run.toString());
    }
}
