package dev.idempotentrelay.cli;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.diagram.RouteFiles;
import dev.idempotentrelay.diagram.RoutePictures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * {@code routes}: the route pictures, drawn from the route files alone (the jar's, or those of {@code --routes DIR}),
 * into {@code --out DIR}: {@code relay.svg}, the whole relay, and {@code <id>.svg} for each route and route
 * configuration, as the admin endpoint draws them but without counts. The files are loaded into a Camel model that is
 * never started: no listener, ledger, timer or bean. An architect who edits a route sees it drawn before it runs.
 */
final class RoutesCommand {

    private RoutesCommand() {
    }

    static int run(String[] args) throws UsageException {
        Flags flags = Flags.parse("routes", args, 1, Set.of("routes", "out"), Set.of());
        Properties builtIn = Settings.builtIn();
        String patterns = flags.has("routes") ? RunCommand.routesPattern("routes", flags.get("routes", null))
                : builtIn.getProperty("camel.main.routes-include-pattern");
        Path out = Path.of(flags.get("out", "."));
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new UsageException("routes: --out " + out + " is not a folder");
        }
        RouteFiles files;
        try {
            files = RouteFiles.load(patterns);
        } catch (IllegalArgumentException e) {
            throw new UsageException("routes: the route files cannot be read: " + where(Relay.rootMessage(e)));
        }
        try (files) {
            Map<String, String> svgs = new RoutePictures(files.model()).drawAll(builtIn.getProperty("camel.main.name"));
            Files.createDirectories(out);
            for (Map.Entry<String, String> svg : svgs.entrySet()) {
                Files.writeString(out.resolve(svg.getKey() + ".svg"), svg.getValue() + "\n", StandardCharsets.UTF_8);
            }
            System.out.println("routes: drew " + svgs.size() + " pictures into " + out);
            return 0;
        } catch (IllegalArgumentException e) {
            throw new UsageException("routes: " + e.getMessage());
        } catch (IOException e) {
            throw new UsageException("routes: cannot write into --out " + out + ": " + e.getMessage());
        }
    }

    /**
     * The YAML DSL's message on one line: "Unknown node id: x" and the line under it, " in file:DIR/a.camel.yaml,
     * line 6, column 11:" (then the file's line and a caret, left out).
     */
    private static String where(String message) {
        List<String> lines = message.lines().toList();
        if (lines.size() > 1 && lines.get(1).startsWith(" in ")) {
            return lines.get(0) + lines.get(1).replaceFirst(":$", "");
        }
        return lines.isEmpty() ? message : lines.get(0);
    }
}
