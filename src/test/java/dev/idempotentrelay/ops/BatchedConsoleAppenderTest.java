package dev.idempotentrelay.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import dev.idempotentrelay.support.Await;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's stdout log as a reader of stdout sees it: every INFO line arrives, in order, shortly, in far fewer
 * writes than lines; a WARN line and every line before it are out when the call that logged it returns; stopping
 * the log writes out what was left.
 */
class BatchedConsoleAppenderTest {

    /** stdout as the appender finds it: what was written, and in how many writes. */
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private final AtomicInteger writes = new AtomicInteger();
    private PrintStream stdout;
    private BatchedConsoleAppender appender;
    private Logger log;

    @BeforeEach
    void open() {
        stdout = System.out;
        System.setOut(new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                writes.incrementAndGet();
                synchronized (written) {
                    written.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writes.incrementAndGet();
                synchronized (written) {
                    written.write(b, off, len);
                }
            }
        }, true));
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%level %msg%n");
        encoder.start();
        appender = new BatchedConsoleAppender();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.start();
        log = context.getLogger("transfers");
        log.addAppender(appender);
    }

    @AfterEach
    void close() {
        appender.stop();
        System.setOut(stdout);
    }

    private String out() {
        synchronized (written) {
            return written.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void everyInfoLineArrivesInOrderShortlyInFarFewerWritesThanLines() throws Exception {
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 2_000; i++) {
            log.info("guid {}: DONE", i);
            expected.append("INFO guid ").append(i).append(": DONE\n");
        }
        Await.until("the 2,000 lines on stdout", Duration.ofSeconds(5), () -> out().length() == expected.length());
        assertEquals(expected.toString(), out());
        assertTrue(writes.get() <= 200, writes.get() + " writes for 2,000 lines");
    }

    @Test
    void aWarnLineAndEveryLineBeforeItAreOutWhenTheCallReturns() {
        log.info("guid 1: DONE");
        log.warn("E902 for guid 2");
        assertEquals("INFO guid 1: DONE\nWARN E902 for guid 2\n", out());
    }

    @Test
    void aCommandsOwnLineAfterFlushAllComesAfterTheLogLinesBeforeIt() {
        log.info("Started receive-telegram");
        BatchedConsoleAppender.flushAll();
        System.out.println("idempotent-relay: listening on port 7000");
        assertEquals("INFO Started receive-telegram\nidempotent-relay: listening on port 7000\n", out());
    }

    @Test
    void stoppingTheLogWritesOutWhatWasLeft() {
        log.info("guid 1: DONE");
        appender.stop();
        assertEquals("INFO guid 1: DONE\n", out());
    }
}
