package dev.idempotentrelay.diagram;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import net.sourceforge.plantuml.FileFormat;
import net.sourceforge.plantuml.FileFormatOption;
import net.sourceforge.plantuml.SourceStringReader;
import net.sourceforge.plantuml.core.DiagramDescription;

/**
 * PlantUML source drawn as SVG, by PlantUML in this JVM. The only class that touches PlantUML: it is loaded with the
 * first picture, not at the relay's start. One picture is drawn at a time (a page that asks for many costs the relay
 * at most one core). The last pictures drawn are kept by their source, and those with live counts by their layout: a
 * route whose counts moved is not laid out again, its numbers are written into the layout drawn before
 * ({@link Counted}).
 */
public final class Svg {

    private static final int KEPT = 64;
    /** The last pictures drawn without counts, by their source. */
    private static final Map<String, String> DRAWN = lastUsed();
    /** The last layouts of pictures with counts, by their source with zeros for the counts (empty: drawn each time). */
    private static final Map<String, Optional<Counted>> LAYOUTS = lastUsed();

    /** A map that keeps the KEPT entries used last. */
    private static <V> Map<String, V> lastUsed() {
        return new LinkedHashMap<>(KEPT * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > KEPT;
            }
        };
    }

    private Svg() {
    }

    /**
     * The SVG of {@code plantUml}; the same source gives the same text.
     *
     * @throws IllegalArgumentException when PlantUML cannot read the source (it would draw its error instead)
     */
    public static synchronized String draw(String plantUml) {
        if (Counted.has(plantUml)) {
            return counted(plantUml);
        }
        String svg = DRAWN.get(plantUml);
        if (svg == null) {
            svg = render(plantUml);
            DRAWN.put(plantUml, svg);
        }
        return svg;
    }

    /**
     * A picture with counts: its layout drawn once and kept (with its numbers' places, {@link Counted}), the numbers
     * written into it; a layout that cannot take them is drawn with them each time.
     */
    private static String counted(String plantUml) {
        String layout = Counted.layoutOf(plantUml);
        Optional<Counted> drawn = LAYOUTS.get(layout);
        if (drawn == null) {
            drawn = Optional.ofNullable(Counted.layout(plantUml, Svg::render));
            LAYOUTS.put(layout, drawn);
        }
        return drawn.isPresent() ? drawn.get().with(plantUml)
                : Counted.drawn(Counted.written(plantUml, Counted.numbers(plantUml)::get), Svg::render);
    }

    private static String render(String plantUml) {
        ByteArrayOutputStream svg = new ByteArrayOutputStream(64 * 1024);
        DiagramDescription drawn;
        try {
            drawn = new SourceStringReader(plantUml).outputImage(svg, new FileFormatOption(FileFormat.SVG));
        } catch (IOException e) {
            throw new IllegalStateException("PlantUML did not draw: " + e.getMessage(), e);
        }
        if (drawn == null || "(Error)".equals(drawn.getDescription())) {
            throw new IllegalArgumentException("PlantUML cannot read this picture's source:\n" + plantUml);
        }
        return svg.toString(StandardCharsets.UTF_8);
    }
}
