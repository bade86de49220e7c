package dev.idempotentrelay.diagram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.sourceforge.plantuml.FileFormat;
import net.sourceforge.plantuml.FileFormatOption;
import net.sourceforge.plantuml.SourceStringReader;
import org.apache.camel.NamedNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A picture whose counts moved is not laid out again, and is still the picture PlantUML draws for those counts: for
 * every route of the relay's route files and the whole relay, drawn with one set of counts and then with others of
 * the same digits (another layout is not needed), the SVG is the one PlantUML draws from the source with the new
 * counts, each number where it belongs.
 */
class CountedPicturesTest {

    private static RouteFiles files;
    private static RoutePictures pictures;
    private static final Links LINKS = id -> "/routes/" + id + ".svg";

    @BeforeAll
    static void loadTheRouteFiles() {
        files = RouteFiles.load("file:routes/*.camel.yaml");
        pictures = new RoutePictures(files.model());
    }

    @AfterAll
    static void close() {
        files.close();
    }

    @Test
    void newCountsWrittenIntoTheLayoutAreThePictureThatPlantUmlDrawsForThem() {
        RandomCounts first = new RandomCounts(1);
        List<String> ids = new ArrayList<>(pictures.ids());
        ids.add(0, RoutePictures.RELAY);
        ids.forEach(id -> source(id, first));
        RandomCounts second = first.sameDigits(2);
        for (String id : ids) {
            String before = source(id, first);
            String after = source(id, second);
            assertTrue(Counted.has(before), id + " has counts");
            assertNotEquals(Counted.numbers(before), Counted.numbers(after), id);
            assertEquals(Counted.layoutOf(before), Counted.layoutOf(after), id + ": the same digits, the same layout");

            Counted layout = Counted.layout(before, CountedPicturesTest::plantUml);
            assertNotNull(layout, id + ": the numbers' places in the layout were not found");
            assertEquals(drawnByPlantUml(after), layout.with(after), id);
            assertEquals(drawnByPlantUml(before), layout.with(before), id);

            assertEquals(drawnByPlantUml(before), Svg.draw(before), id);
            assertEquals(drawnByPlantUml(after), Svg.draw(after), id + ": drawn from the layout kept");
        }
    }

    @Test
    void aCountThatGainsADigitOrABranchFirstTakenIsANewLayout() {
        RandomCounts counts = new RandomCounts(3);
        String before = source("receive-telegram", counts);
        counts.growOneNumber();
        String after = source("receive-telegram", counts);
        assertNotEquals(Counted.layoutOf(before), Counted.layoutOf(after));
        Svg.draw(before);
        assertEquals(drawnByPlantUml(after), Svg.draw(after));
    }

    private static String source(String id, Counts counts) {
        return RoutePictures.RELAY.equals(id) ? pictures.relaySource("relay", counts, LINKS) : pictures.source(id, counts, LINKS);
    }

    /** The SVG PlantUML draws for the source with its numbers written as they are, without its copy of the source. */
    private static String drawnByPlantUml(String source) {
        return Counted.drawn(Counted.written(source, Counted.numbers(source)::get), CountedPicturesTest::plantUml);
    }

    private static String plantUml(String source) {
        ByteArrayOutputStream svg = new ByteArrayOutputStream();
        try {
            new SourceStringReader(source).outputImage(svg, new FileFormatOption(FileFormat.SVG));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return svg.toString(StandardCharsets.UTF_8);
    }

    /** Counts for every step and route, from a seed: some never taken, some once, some with failures, up to 6 digits. */
    private static final class RandomCounts implements Counts {

        private final Random random;
        private final Map<Object, StepCount> given = new HashMap<>();

        RandomCounts(long seed) {
            random = new Random(seed);
        }

        @Override
        public StepCount step(NamedNode node) {
            return given.computeIfAbsent(node, n -> next());
        }

        @Override
        public StepCount route(String routeId) {
            return given.computeIfAbsent("route " + routeId, n -> next());
        }

        private StepCount next() {
            int kind = random.nextInt(6);
            long exchanges = kind == 0 ? 0 : kind == 1 ? 1 : 2 + random.nextInt(999_998);
            long failures = kind > 3 && exchanges > 1 ? 1 + random.nextInt((int) Math.min(exchanges, 5000)) : 0;
            return new StepCount(exchanges, failures);
        }

        /** Other counts with the same digits (the same layout) for everything counted so far. */
        RandomCounts sameDigits(long seed) {
            RandomCounts other = new RandomCounts(seed);
            given.forEach((key, count) -> other.given.put(key, new StepCount(
                    count.exchanges() < 2 ? count.exchanges() : other.sameLength(count.exchanges(), 2),
                    count.failures() == 0 ? 0 : other.sameLength(count.failures(), 1))));
            return other;
        }

        private long sameLength(long n, long least) {
            long low = Math.max(least, (long) Math.pow(10, Long.toString(n).length() - 1));
            long high = (long) Math.pow(10, Long.toString(n).length());
            return low + (long) (random.nextDouble() * (high - low));
        }

        /** One count of at least 2 multiplied by ten: one more digit. */
        void growOneNumber() {
            Map.Entry<Object, StepCount> grown = given.entrySet().stream().filter(e -> e.getValue().exchanges() > 1)
                    .findFirst().orElseThrow();
            grown.setValue(new StepCount(grown.getValue().exchanges() * 10, grown.getValue().failures()));
        }
    }
}
