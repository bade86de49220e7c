package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.cli.RelayCommand;
import dev.idempotentrelay.support.RouteFileIds;
import dev.idempotentrelay.support.SvgText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed route pictures, docs/routes/*.svg, still match the route files: the routes command draws them again
 * from routes/ and each must be the committed one, with none missing and none left over. Compared as a reader sees
 * them (elements, text, colours, links), not by the exact position of each: PlantUML measures text with the
 * machine's fonts, so another machine may place the same picture a fraction of a pixel apart.
 */
class RoutePictureFilesTest {

    private static final Path DOCS = Path.of("docs", "routes");
    private static final String REDRAW = "java -jar target/idempotent-relay.jar routes --out docs/routes";
    /** The attributes that place and size what is drawn: the only ones that depend on the fonts. */
    private static final Pattern GEOMETRY = Pattern.compile(
            " (x|y|x1|y1|x2|y2|cx|cy|rx|ry|width|height|textLength|points|d|viewBox|transform)=\"[^\"]*\"|width:[0-9.]+px;height:[0-9.]+px;");

    @TempDir
    Path dir;

    @Test
    void theCommittedPicturesAreThoseOfTheRouteFiles() throws Exception {
        Path drawn = dir.resolve("drawn");
        assertEquals(0, RelayCommand.execute(new String[] {"routes", "--routes", "routes", "--out", drawn.toString()}, Map.of()));
        Set<String> names = names(drawn);
        assertTrue(names.contains("relay.svg") && names.contains("receive-telegram.svg"), "drew " + names);
        assertTrue(Files.isDirectory(DOCS), DOCS + " missing: draw the pictures with " + REDRAW);

        List<String> wrong = new ArrayList<>();
        for (String name : names) {
            Path committed = DOCS.resolve(name);
            if (!Files.exists(committed)) {
                wrong.add(name + " is not committed");
            } else if (!placeless(Files.readString(committed)).equals(placeless(Files.readString(drawn.resolve(name))))) {
                wrong.add(name + " no longer matches its route");
            }
        }
        for (String name : names(DOCS)) {
            if (!names.contains(name)) {
                wrong.add(name + " has no route any more: delete it");
            }
        }
        assertEquals(List.of(), wrong, "docs/routes is out of date: after mvn package, run " + REDRAW);
    }

    @Test
    void eachCommittedPictureShowsTheIdsOfItsRoute() throws Exception {
        for (Map.Entry<String, Set<String>> route : RouteFileIds.of(Path.of("routes")).entrySet()) {
            SvgText picture = SvgText.of(Files.readString(DOCS.resolve(route.getKey() + ".svg")));
            List<String> missing = route.getValue().stream().filter(id -> !picture.has(id)).toList();
            assertEquals(List.of(), missing, route.getKey());
            assertTrue(picture.texts().stream().noneMatch(t -> t.matches("\\d+ exchanges?.*|never taken")),
                    "a picture drawn from the files has no counts: " + route.getKey());
        }
    }

    private static String placeless(String svg) {
        return GEOMETRY.matcher(svg).replaceAll("");
    }

    private static Set<String> names(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".svg")).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
