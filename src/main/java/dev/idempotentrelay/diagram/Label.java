package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.List;

/**
 * Text for PlantUML's labels. A route's own text (a URI, a Simple expression, a log message) is full of what PlantUML
 * would read as syntax: {@code //} and {@code **} are creole italics and bold, {@code <...>} a tag, {@code [[...]]} a
 * link, {@code $} and {@code %} the preprocessor's, {@code ;} the end of an activity. So every character but letters,
 * digits and a few harmless marks is written as PlantUML's {@code <U+XXXX>} and drawn as itself.
 */
final class Label {

    /** Between two lines of one label (PlantUML's own escape; a route's backslashes are escaped, so never one of them). */
    static final String NEWLINE = "\\n";
    private static final String PLAIN = " ,.:@+?&";

    private Label() {
    }

    /** {@code text} drawn as it is, on one line. */
    static String text(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        text.codePoints().forEach(c -> {
            if (c < 128 && (Character.isLetterOrDigit(c) || PLAIN.indexOf(c) >= 0)) {
                out.append((char) c);
            } else if (c == '\n' || c == '\r' || c == '\t') {
                out.append(' ');
            } else {
                out.append(String.format("<U+%04X>", c));
            }
        });
        return out.toString();
    }

    /** {@code text} cut to at most {@code max} characters, an ellipsis where it was cut; blank when null. */
    static String clip(String text, int max) {
        if (text == null) {
            return "";
        }
        String flat = text.strip().replaceAll("\\s+", " ");
        return flat.length() <= max ? flat : flat.substring(0, max - 1) + "\u2026";
    }

    /** {@code text} in lines of at most {@code width} characters, broken between words, each line escaped. */
    static List<String> wrapped(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.strip().split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(text(line.toString()));
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(text(line.toString()));
        }
        return lines;
    }

    static String bold(String escaped) {
        return "<b>" + escaped + "</b>";
    }

    static String small(String escaped) {
        return "<size:10>" + escaped + "</size>";
    }

    static String grey(String escaped) {
        return "<color:#6b6b6b>" + escaped + "</color>";
    }

    static String red(String escaped) {
        return "<color:#b00020>" + escaped + "</color>";
    }

    /** A link drawn as {@code escaped}: PlantUML's {@code [[href label]]}. */
    static String link(String href, String escaped) {
        return "[[" + href + " " + escaped + "]]";
    }

    /**
     * The line under a step: its exchanges, and its failures when there were any; "never taken" for none. Each number
     * that is not fixed by the words around it is marked as a {@link Counted} number, so that a picture whose numbers
     * moved is not laid out again.
     */
    static String count(StepCount count) {
        if (count.exchanges() == 0) {
            return grey(text("never taken"));
        }
        String line = count.exchanges() == 1 ? text("1 exchange") : Counted.number(count.exchanges()) + text(" exchanges");
        if (count.failures() > 0) {
            return line + text(", ") + red(Counted.number(count.failures()) + text(" failed"));
        }
        return line;
    }
}
