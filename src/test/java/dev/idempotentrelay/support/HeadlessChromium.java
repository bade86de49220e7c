package dev.idempotentrelay.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless (installed by .ci/run): a page as a browser shows it, after its scripts ran for a given
 * time of the page's own clock (virtual time, which waits for the page's fetches). A fresh profile each time, and none
 * of Chromium's own calls to the network.
 */
public final class HeadlessChromium {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private final Path profiles;

    public HeadlessChromium(Path profiles) {
        if (!Files.isExecutable(CHROMIUM)) {
            throw new AssertionError(CHROMIUM + " is missing: install Debian's chromium (apt-get install chromium), as .ci/run does");
        }
        this.profiles = profiles;
    }

    /** The page at {@code url} as a PNG of {@code width} x {@code height} pixels, after {@code scriptMs} of its time. */
    public void screenshot(String url, Path png, int width, int height, long scriptMs) throws Exception {
        run(url, scriptMs, "--screenshot=" + png, "--window-size=" + width + "," + height, "--hide-scrollbars");
        if (!Files.isRegularFile(png)) {
            throw new AssertionError("chromium wrote no screenshot of " + url);
        }
    }

    /** The DOM of the page at {@code url} after {@code scriptMs} of its time, as HTML. */
    public String dom(String url, long scriptMs) throws Exception {
        return run(url, scriptMs, "--dump-dom");
    }

    private String run(String url, long scriptMs, String... what) throws Exception {
        Path profile = Files.createTempDirectory(profiles, "chromium-");
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=" + scriptMs));
        command.addAll(List.of(what));
        command.add(url);
        Path out = profile.resolve("stdout");
        Process chromium = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(profile.resolve("stderr").toFile()).start();
        try {
            if (!chromium.waitFor(90, TimeUnit.SECONDS)) {
                throw new AssertionError("chromium did not finish with " + url + " in 90 s");
            }
            if (chromium.exitValue() != 0) {
                throw new AssertionError("chromium exited " + chromium.exitValue() + ": " + read(profile.resolve("stderr")));
            }
            return read(out);
        } finally {
            chromium.descendants().forEach(ProcessHandle::destroyForcibly);
            chromium.destroyForcibly();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
