package dev.idempotentrelay.support;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The log lines this JVM writes while it is open (WARN and above: the tests' log level), each as
 * {@code LEVEL logger - message}, to wait for a line or to look through them all.
 */
public final class LogLines extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private LogLines() {
        setName("test-log-lines");
    }

    public static LogLines capture() {
        LogLines lines = new LogLines();
        lines.setContext(lines.root.getLoggerContext());
        lines.start();
        lines.root.addAppender(lines);
        return lines;
    }

    @Override
    protected void append(ILoggingEvent event) {
        lines.add(event.getLevel() + " " + event.getLoggerName() + " - " + event.getFormattedMessage());
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits until a line holds every fragment, and returns it. */
    public String await(Duration limit, String... fragments) throws Exception {
        Await.until("a log line with " + List.of(fragments) + "; lines so far: " + lines, limit, () -> find(fragments) != null);
        return find(fragments);
    }

    private String find(String... fragments) {
        for (String line : lines) {
            if (List.of(fragments).stream().allMatch(line::contains)) {
                return line;
            }
        }
        return null;
    }

    @Override
    public void close() {
        root.detachAppender(this);
        stop();
    }
}
