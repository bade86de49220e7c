package dev.idempotentrelay.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A copy of the repository's routes/ folder, as an architect makes one to edit and load with run --routes DIR. */
public final class RoutesCopy {

    private RoutesCopy() {
    }

    /** Copies every file of routes/ into a new folder {@code dir/routes}, and returns that folder. */
    public static Path in(Path dir) throws IOException {
        Path routes = Files.createDirectory(dir.resolve("routes"));
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, routes.resolve(file.getFileName()));
            }
        }
        return routes;
    }
}
