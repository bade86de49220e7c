package dev.idempotentrelay.diagram;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import net.sourceforge.plantuml.FileFormat;
import net.sourceforge.plantuml.FileFormatOption;
import net.sourceforge.plantuml.SourceStringReader;
import net.sourceforge.plantuml.core.DiagramDescription;

/**
 * PlantUML source drawn as SVG, by PlantUML in this JVM. The only class that touches PlantUML: it is loaded with the
 * first picture, not at the relay's start. One picture is drawn at a time (a page that asks for many costs the relay
 * at most one core), and the last pictures drawn are kept by their source: a route whose counts did not move is not
 * drawn again.
 */
public final class Svg {

    private static final int KEPT = 64;
    private static final Map<String, String> DRAWN = new LinkedHashMap<>(KEPT * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > KEPT;
        }
    };

    private Svg() {
    }

    /**
     * The SVG of {@code plantUml}; the same source gives the same text.
     *
     * @throws IllegalArgumentException when PlantUML cannot read the source (it would draw its error instead)
     */
    public static synchronized String draw(String plantUml) {
        String svg = DRAWN.get(plantUml);
        if (svg == null) {
            svg = render(plantUml);
            DRAWN.put(plantUml, svg);
        }
        return svg;
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
