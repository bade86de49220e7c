package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreAndRelayTest;
import dev.idempotentrelay.support.HeadlessChromium;
import dev.idempotentrelay.support.RouteFileIds;
import dev.idempotentrelay.telegram.Telegram;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.apache.camel.api.management.ManagedCamelContext;
import org.junit.jupiter.api.Test;

/**
 * The admin endpoint's page in a real browser (headless Chromium): the pictures draw, every route has its own with
 * its steps, the page's script draws them again, and nothing comes from outside the page. The screenshot stays in
 * target/route-page.png for a person to look at.
 */
class RoutePageBrowserTest extends CoreAndRelayTest {

    /** The fills of the whole relay's picture: the channels' and the admin endpoint's, the ledger's, the core's. */
    private static final Map<String, Integer> FILLS = Map.of("endpoint", 0xE4E4F7, "ledger", 0xFFF1C9, "core", 0xFCDCC8);
    private static final Set<String> TIMED = Set.of("purge-ledger", "reprocess-failed", "resolve-unknown");
    private static final Pattern SECTION = Pattern.compile("<section id=\"([^\"]+)\"[^>]*>(.*?)</section>", Pattern.DOTALL);

    @Test
    void thePicturesDrawInABrowserAndItsScriptDrawsThemAgain() throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
        }
        HeadlessChromium chromium = new HeadlessChromium(dir);
        String page = "http://127.0.0.1:" + relay.adminPort + "/";

        Path screenshot = Path.of("target", "route-page.png");
        Files.deleteIfExists(screenshot);
        chromium.screenshot(page, screenshot, 1400, 1600, 1_000);
        BufferedImage image = ImageIO.read(screenshot.toFile());
        for (Map.Entry<String, Integer> fill : FILLS.entrySet()) {
            assertTrue(pixels(image, fill.getValue()) > 200, "the " + fill.getKey() + " of the whole relay drawn in " + screenshot);
        }

        // after 12 s of the page's time, the script has fetched the pictures in view again (every 5 s)
        long before = drawnWholeRelay();
        String dom = chromium.dom(page, 12_000);
        assertTrue(drawnWholeRelay() >= before + 2, "the script drew the whole relay again, twice");

        Matcher sections = SECTION.matcher(dom);
        Set<String> drawn = new TreeSet<>();
        while (sections.find()) {
            assertTrue(sections.group(2).contains("<svg") && sections.group(2).contains("</svg>"), "a picture in " + sections.group(1));
            drawn.add(sections.group(1));
        }
        Set<String> expected = new TreeSet<>(RouteFileIds.of(Path.of("routes")).keySet());
        expected.removeAll(TIMED); // with jobs off, their timers' routes are not loaded
        expected.remove("watch-ledger-replication"); // a PostgreSQL ledger's alone
        expected.add("relay");
        assertEquals(expected, drawn, "the whole relay and each route drawn in the page");
        assertTrue(dom.contains(">core-accepted<") && dom.contains(">1 exchange<"), "the counts in the page");
        assertTrue(!dom.contains("<script src") && !dom.contains("<link "), "nothing loaded from outside the page");
    }

    /** How many times the relay drew the whole relay's picture (the route of GET /routes.svg). */
    private long drawnWholeRelay() throws Exception {
        return relay.relay().context().getCamelContextExtension().getContextPlugin(ManagedCamelContext.class)
                .getManagedRoute("admin-relay-picture").getExchangesTotal();
    }

    private static int pixels(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }
}
