package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.MarkdownFile;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents a reader follows from the README: every relative link of README.md and docs/*.md names a file or
 * folder of the repository, and every #anchor a heading of the file it points into (GitHub's anchors: the heading
 * lowercased, punctuation dropped, spaces as hyphens); every repository path they name in a code span exists; and
 * the README stays short.
 */
class DocumentLinksTest {

    /** Where a path of the repository starts, as the documents name them in code spans. */
    private static final Set<String> REPOSITORY_FOLDERS = Set.of("routes/", "sql/", "scripts/", "bin/", "src/", "ops/", "docs/", ".ci/");

    @Test
    void everyRelativeLinkNamesAFileAndEveryAnchorAHeading() throws Exception {
        List<String> broken = new ArrayList<>();
        for (Path document : documents()) {
            MarkdownFile file = MarkdownFile.read(document);
            for (MarkdownFile.Link link : file.links()) {
                String target = link.target();
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                String where = document + ":" + link.line() + " " + target + ": ";
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                Path linked = path.isEmpty() ? document : document.resolveSibling(path).normalize();
                if (!Files.exists(linked)) {
                    broken.add(where + "no file " + linked);
                    continue;
                }
                if (hash >= 0) {
                    String anchor = target.substring(hash + 1);
                    if (!linked.toString().endsWith(".md")) {
                        broken.add(where + "an anchor into a file that is not Markdown");
                    } else if (!MarkdownFile.read(linked).anchors().contains(anchor)) {
                        broken.add(where + "no heading with anchor #" + anchor + " in " + linked);
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    @Test
    void everyRepositoryPathTheDocumentsNameExists() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Path document : documents()) {
            for (MarkdownFile.Link span : MarkdownFile.read(document).codeSpans()) {
                for (String word : span.target().split("\\s+")) {
                    String path = word.replaceAll("[,.;:)]+$", "");
                    if (REPOSITORY_FOLDERS.stream().anyMatch(path::startsWith) && !exists(path)) {
                        missing.add(document + ":" + span.line() + " names " + path);
                    }
                }
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void theReadmeIsShortAndLinksEveryDocument() throws Exception {
        Path readme = Path.of("README.md");
        assertTrue(Files.readAllLines(readme).size() <= 200, "README.md has more than 200 lines");
        List<String> linked = MarkdownFile.read(readme).links().stream().map(MarkdownFile.Link::target)
                .map(t -> t.contains("#") ? t.substring(0, t.indexOf('#')) : t).toList();
        List<String> unlinked = new ArrayList<>();
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(d -> d.toString().endsWith(".md")).map(Path::toString).sorted()
                    .filter(d -> !linked.contains(d)).forEach(unlinked::add);
        }
        assertEquals(List.of(), unlinked, "documents the README does not link");
    }

    /** A path of the repository, or a glob (routes/*.camel.yaml) that matches at least one. */
    private static boolean exists(String path) throws IOException {
        if (!path.contains("*")) {
            return Files.exists(Path.of(path));
        }
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + path);
        Path root = Path.of(path.substring(0, path.indexOf('/')));
        try (Stream<Path> files = Files.walk(root)) {
            return files.anyMatch(matcher::matches);
        }
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(Path.of("README.md"), Path.of("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(d -> d.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }
}
