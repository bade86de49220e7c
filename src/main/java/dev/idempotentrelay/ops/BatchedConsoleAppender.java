package dev.idempotentrelay.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.joran.spi.ConsoleTarget;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The relay's log on stdout, written in batches: a line is encoded into a buffer at once, and the buffer goes out
 * every {@code flushMs} milliseconds (20) in one write, instead of a write of its own for each line, one per
 * transfer (under load the largest system call the relay made after its sockets'). A WARN or ERROR line goes out
 * at once, with whatever is before it. When the JVM shuts down, what is buffered goes out and every line after that
 * at once; {@link #stop()} writes out what is left. A command's own line on stdout comes after the log lines before it
 * ({@link #flushAll()}).
 */
public final class BatchedConsoleAppender extends OutputStreamAppender<ILoggingEvent> {

    private static final int BUFFER_BYTES = 64 * 1024;
    private static final Set<BatchedConsoleAppender> STARTED = ConcurrentHashMap.newKeySet();

    private long flushMs = 20;
    private volatile boolean pending;
    private volatile boolean running;
    private Thread flusher;
    private Thread atExit;

    /** The longest an INFO line waits in the buffer, in milliseconds (logback.xml: {@code <flushMs>}). */
    public void setFlushMs(long flushMs) {
        this.flushMs = flushMs;
    }

    @Override
    public void start() {
        setOutputStream(new BufferedOutputStream(ConsoleTarget.SystemOut.getStream(), BUFFER_BYTES));
        setImmediateFlush(false);
        super.start();
        running = true;
        flusher = new Thread(this::flushEvery, "log-flush");
        flusher.setDaemon(true);
        flusher.start();
        atExit = new Thread(this::flushAndGoImmediate, "log-flush-at-exit");
        Runtime.getRuntime().addShutdownHook(atExit);
        STARTED.add(this);
    }

    /**
     * Writes out the lines every started log of this kind holds. A command calls it before it prints a line of its own
     * to stdout ({@code listening on port ...}), so that the log lines before that line come before it.
     */
    public static void flushAll() {
        for (BatchedConsoleAppender appender : STARTED) {
            appender.flush();
        }
    }

    @Override
    protected void subAppend(ILoggingEvent event) {
        super.subAppend(event);
        if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
            flush();
        } else {
            pending = true;
        }
    }

    private void flushEvery() {
        while (running) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(flushMs));
            if (pending) {
                flush();
            }
        }
    }

    /** At JVM shutdown: what is buffered out now, and every line from now on out at once (no flusher to count on). */
    private void flushAndGoImmediate() {
        setImmediateFlush(true);
        flush();
    }

    private void flush() {
        pending = false;
        streamWriteLock.lock();
        try {
            if (getOutputStream() != null) {
                getOutputStream().flush();
            }
        } catch (IOException e) {
            addError("flush of the log to stdout failed", e);
        } finally {
            streamWriteLock.unlock();
        }
    }

    @Override
    public void stop() {
        STARTED.remove(this);
        running = false;
        if (flusher != null) {
            LockSupport.unpark(flusher);
        }
        if (atExit != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, or ran, anyway
            }
        }
        flush();
        super.stop();
    }
}
