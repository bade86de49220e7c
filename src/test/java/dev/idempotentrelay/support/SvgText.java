package dev.idempotentrelay.support;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The words of an SVG picture as a reader sees them: each {@code <text>} element's text, in the order drawn. */
public final class SvgText {

    private static final Pattern TEXT = Pattern.compile("<text[^>]*>([^<]*)</text>");
    private static final Pattern COUNT = Pattern.compile("^(\\d+) exchanges?\\b.*");
    private final List<String> texts = new ArrayList<>();

    private SvgText(String svg) {
        Matcher m = TEXT.matcher(svg);
        while (m.find()) {
            texts.add(unescape(m.group(1)));
        }
    }

    public static SvgText of(String svg) {
        return new SvgText(svg);
    }

    public List<String> texts() {
        return texts;
    }

    /** Whether {@code word} is drawn, as a whole word (a step id is not found inside a longer id). */
    public boolean has(String word) {
        Pattern whole = Pattern.compile("(^|[^A-Za-z0-9-])" + Pattern.quote(word) + "($|[^A-Za-z0-9-])");
        return texts.stream().anyMatch(t -> whole.matcher(t).find());
    }

    /**
     * The count drawn under the label {@code id} (a step or a branch): the exchanges on one of the next three lines,
     * 0 for "never taken"; empty when {@code id} is not drawn alone on a line or has no count under it.
     */
    public OptionalLong countUnder(String id) {
        int at = texts.indexOf(id);
        if (at < 0) {
            return OptionalLong.empty();
        }
        for (int i = at + 1; i < Math.min(texts.size(), at + 4); i++) {
            String line = texts.get(i);
            if (line.equals("never taken")) {
                return OptionalLong.of(0);
            }
            Matcher m = COUNT.matcher(line);
            if (m.matches()) {
                return OptionalLong.of(Long.parseLong(m.group(1)));
            }
        }
        return OptionalLong.empty();
    }

    private static String unescape(String xml) {
        Matcher m = Pattern.compile("&#(x?)([0-9A-Fa-f]+);").matcher(xml.replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&apos;", "'"));
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(new String(Character.toChars(
                    Integer.parseInt(m.group(2), m.group(1).isEmpty() ? 10 : 16)))));
        }
        m.appendTail(out);
        return out.toString().replace("&amp;", "&");
    }
}
