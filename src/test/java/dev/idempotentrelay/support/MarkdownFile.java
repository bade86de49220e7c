package dev.idempotentrelay.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown document of the repository as GitHub renders it, read for what the tests check: the anchors of its
 * headings, its relative links, and the code spans of its prose. The documents fence their code blocks (```); a fenced
 * block and an HTML comment are not prose: a link or a code span inside them is left out.
 */
public final class MarkdownFile {

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");

    public final Path path;
    /** The lines of prose (headings, text, tables, lists), each with its line number. */
    private final List<Map.Entry<Integer, String>> prose = new ArrayList<>();
    private final Set<String> anchors = new LinkedHashSet<>();

    private MarkdownFile(Path path) {
        this.path = path;
    }

    public static MarkdownFile read(Path path) throws IOException {
        MarkdownFile file = new MarkdownFile(path);
        List<String> lines = Files.readAllLines(path);
        boolean fenced = false;
        boolean comment = false;
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            if (comment || line.strip().startsWith("<!--")) {
                comment = !line.contains("-->");
                continue;
            }
            file.prose.add(Map.entry(i + 1, line));
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum);
                file.anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return file;
    }

    /** The anchor GitHub gives a heading: its text lowercased, punctuation dropped, each space a hyphen. */
    public static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        StringBuilder slug = new StringBuilder();
        for (int cp : text.toLowerCase(Locale.ROOT).codePoints().toArray()) {
            if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                slug.appendCodePoint(cp);
            } else if (cp == ' ') {
                slug.append('-');
            }
        }
        return slug.toString();
    }

    public Set<String> anchors() {
        return anchors;
    }

    /** A link of the prose: its line and its target as written. */
    public record Link(int line, String target) {
    }

    /** The links of the prose, in order. */
    public List<Link> links() {
        List<Link> links = new ArrayList<>();
        for (Map.Entry<Integer, String> line : prose) {
            Matcher m = LINK.matcher(line.getValue());
            while (m.find()) {
                links.add(new Link(line.getKey(), m.group(2)));
            }
        }
        return links;
    }

    /** The code spans of the prose (the text between backticks), each with its line. */
    public List<Link> codeSpans() {
        List<Link> spans = new ArrayList<>();
        for (Map.Entry<Integer, String> line : prose) {
            Matcher m = CODE_SPAN.matcher(line.getValue());
            while (m.find()) {
                spans.add(new Link(line.getKey(), m.group(1)));
            }
        }
        return spans;
    }

    /**
     * The fenced code blocks of one language (those opened by ```sql for "sql") in the section under a heading, up to
     * the next heading of the same or a higher level, each as its text; a line starting with # inside a block is
     * code, not a heading.
     */
    public List<String> codeBlocks(String heading, String language) throws IOException {
        List<String> blocks = new ArrayList<>();
        int level = 0;
        boolean fenced = false;
        StringBuilder block = null;
        for (String line : lines()) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                if (fenced && level > 0 && line.strip().equals("```" + language)) {
                    block = new StringBuilder();
                } else if (!fenced && block != null) {
                    blocks.add(block.toString());
                    block = null;
                }
                continue;
            }
            if (fenced) {
                if (block != null) {
                    block.append(line).append('\n');
                }
                continue;
            }
            Matcher title = HEADING.matcher(line);
            if (title.matches()) {
                int depth = line.indexOf(' ');
                if (level > 0 && depth <= level) {
                    break;
                }
                if (level == 0 && title.group(1).equals(heading)) {
                    level = depth;
                }
            }
        }
        return blocks;
    }

    /** Every line of the file, code included. */
    public List<String> lines() throws IOException {
        return Files.readAllLines(path);
    }
}
