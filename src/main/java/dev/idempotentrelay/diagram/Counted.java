package dev.idempotentrelay.diagram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live counts of a picture written into a layout that PlantUML drew once. A count on a picture changes with every
 * exchange, and laying a picture out again costs tens of milliseconds; its layout changes only when a count gains a
 * digit, a branch is first taken or a step first fails. So PlantUML draws each layout once, with zeros for the
 * numbers, and the numbers are written into that SVG: where PlantUML draws a digit's width for every digit (checked
 * once, {@link #digitsAlike}), the result is the SVG PlantUML would have drawn for those numbers.
 *
 * <p>Where each number stands in the SVG is found, not assumed: PlantUML draws the layout again with each number's
 * first digit set from 2 to 9 by the number's index (base 8, a drawing per base-8 digit of the index), and the SVGs
 * must differ at exactly one place per number and nowhere else. A layout where they do not is drawn anew each time.
 */
final class Counted {

    private static final char OPEN = '\u0001';
    private static final char CLOSE = '\u0002';
    private static final Pattern NUMBER = Pattern.compile(OPEN + "([0-9]+)" + CLOSE);
    private static final Pattern TEXT_LENGTH = Pattern.compile("textLength=\"([^\"]+)\"");
    private static final Pattern SOURCE_METADATA = Pattern.compile("<\\?plantuml-src [^?]*\\?>");
    private static Boolean digitsAlike;

    /** The layout's SVG cut at its numbers, and for each cut the index of the number that goes there. */
    private final String[] pieces;
    private final int[] numberAt;

    private Counted(String[] pieces, int[] numberAt) {
        this.pieces = pieces;
        this.numberAt = numberAt;
    }

    /** {@code n} in a picture's source, marked as a count that may change without changing the layout. */
    static String number(long n) {
        return OPEN + Long.toString(n) + CLOSE;
    }

    /** Whether {@code source} has marked numbers. */
    static boolean has(String source) {
        return source.indexOf(OPEN) >= 0;
    }

    /** The numbers marked in {@code source}, in order. */
    static List<String> numbers(String source) {
        List<String> numbers = new ArrayList<>();
        Matcher m = NUMBER.matcher(source);
        while (m.find()) {
            numbers.add(m.group(1));
        }
        return numbers;
    }

    /** {@code source} with its marks removed and each marked number written by {@code write} (given its index). */
    static String written(String source, Function<Integer, String> write) {
        Matcher m = NUMBER.matcher(source);
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(write.apply(i++)));
        }
        return m.appendTail(out).toString();
    }

    /** The layout of {@code source}: its marked numbers as zeros, the key under which its drawing is kept. */
    static String layoutOf(String source) {
        List<String> numbers = numbers(source);
        return written(source, i -> "0".repeat(numbers.get(i).length()));
    }

    /** The SVG of {@code source} without PlantUML's copy of its source, which would hold the numbers. */
    static String drawn(String source, Function<String, String> draw) {
        return SOURCE_METADATA.matcher(draw.apply(source)).replaceFirst("");
    }

    /**
     * The layout of {@code source} drawn by {@code draw} (PlantUML source to SVG), ready for its numbers; null when
     * the numbers cannot be written into one drawing (the picture is then drawn anew each time).
     */
    static Counted layout(String source, Function<String, String> draw) {
        if (!digitsAlike(draw)) {
            return null;
        }
        List<String> numbers = numbers(source);
        int n = numbers.size();
        String zeros = drawn(layoutOf(source), draw);
        int[] indexAt = new int[zeros.length()];
        Arrays.fill(indexAt, -1);
        List<Integer> places = null;
        int weight = 1;
        for (int round = 0; round == 0 || weight < n; round++, weight *= 8) {
            int w = weight;
            String probe = drawn(written(source, i -> (char) ('2' + (i / w) % 8) + "0".repeat(numbers.get(i).length() - 1)), draw);
            if (probe.length() != zeros.length()) {
                return null;
            }
            List<Integer> differ = new ArrayList<>();
            for (int at = 0; at < probe.length(); at++) {
                if (probe.charAt(at) != zeros.charAt(at)) {
                    differ.add(at);
                    indexAt[at] = (indexAt[at] < 0 ? 0 : indexAt[at]) + (probe.charAt(at) - '2') * w;
                }
            }
            if (places != null && !places.equals(differ) || differ.size() != n) {
                return null;
            }
            places = differ;
        }
        String[] pieces = new String[n + 1];
        int[] numberAt = new int[n];
        boolean[] seen = new boolean[n];
        int from = 0;
        for (int j = 0; j < n; j++) {
            int at = places.get(j);
            int i = indexAt[at];
            if (i < 0 || i >= n || seen[i] || !zeros.startsWith("0".repeat(numbers.get(i).length()), at)) {
                return null;
            }
            seen[i] = true;
            numberAt[j] = i;
            pieces[j] = zeros.substring(from, at);
            from = at + numbers.get(i).length();
        }
        pieces[n] = zeros.substring(from);
        return new Counted(pieces, numberAt);
    }

    /** The SVG of this layout with the numbers marked in {@code source}, which has this layout. */
    String with(String source) {
        List<String> numbers = numbers(source);
        StringBuilder svg = new StringBuilder(pieces.length * 64 + pieces[0].length());
        for (int j = 0; j < numberAt.length; j++) {
            svg.append(pieces[j]).append(numbers.get(numberAt[j]));
        }
        return svg.append(pieces[numberAt.length]).toString();
    }

    /**
     * Whether PlantUML gives every digit the same width, at both sizes the pictures use (fonts with tabular figures
     * do); only then is a number's text the same width whatever its digits. Drawn once, on the first picture with
     * counts.
     */
    private static boolean digitsAlike(Function<String, String> draw) {
        if (digitsAlike == null) {
            StringBuilder source = new StringBuilder("@startuml\n");
            for (char d = '0'; d <= '9'; d++) {
                source.append(':').append(String.valueOf(d).repeat(6)).append(";\n");
            }
            for (char d = '0'; d <= '9'; d++) {
                source.append(':').append(Label.small(String.valueOf(d).repeat(6))).append(";\n");
            }
            List<String> lengths = new ArrayList<>();
            Matcher m = TEXT_LENGTH.matcher(draw.apply(source.append("@enduml\n").toString()));
            while (m.find()) {
                lengths.add(m.group(1));
            }
            digitsAlike = lengths.size() == 20
                    && lengths.subList(0, 10).stream().distinct().count() == 1
                    && lengths.subList(10, 20).stream().distinct().count() == 1;
        }
        return digitsAlike;
    }
}
