package dev.idempotentrelay.support;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relay's start-up line that says which threads its channel listener runs transfers on, and on which JDK:
 * {@code channel threads: a virtual thread per connection, ... (JDK 25)} or {@code channel threads: an OS thread per
 * connection, ... (JDK 17; ...)}.
 */
public record ChannelThreadsLine(String line, boolean virtual, int jdk) {

    /** The first JDK on which the relay runs its channel path on virtual threads. */
    public static final int FIRST_VIRTUAL_JDK = 24;

    private static final Pattern JDK = Pattern.compile("\\(JDK (\\d+)[;)]");

    /** The line among a relay's output; fails when there is none or it names no JDK. */
    public static ChannelThreadsLine of(List<String> output) {
        String line = output.stream().filter(l -> l.contains("channel threads: ")).findFirst()
                .orElseThrow(() -> new AssertionError("no 'channel threads:' line in " + output));
        Matcher jdk = JDK.matcher(line);
        if (!jdk.find()) {
            throw new AssertionError("no JDK named in: " + line);
        }
        return new ChannelThreadsLine(line, line.contains("channel threads: a virtual thread per connection"),
                Integer.parseInt(jdk.group(1)));
    }
}
