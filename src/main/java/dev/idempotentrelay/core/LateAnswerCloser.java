package dev.idempotentrelay.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The core's read timeout (relay.core.read-timeout-ms), kept for every connection to the core by one thread: a
 * connection whose answer has not come in full within the timeout after its request began to leave is closed, and
 * the call waiting on it fails with a {@link java.net.SocketTimeoutException} (E901, outcome unknown, on the channel
 * path). The reads themselves then wait without a timeout. A timed read costs, per answer, four {@code fcntl} calls
 * and a {@code poll} on a platform thread (the socket channel is switched to non-blocking and back around every
 * timed read), and on a virtual thread a timer scheduled and cancelled, each of which wakes the JDK's timer thread;
 * this thread wakes {@value #TICKS_PER_TIMEOUT} times per timeout, whatever the load.
 */
final class LateAnswerCloser {

    /** How often per timeout the connections are looked at: a late answer is cut off at most 1/20 of it late. */
    static final int TICKS_PER_TIMEOUT = 20;

    private final Set<CoreConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile long timeoutNanos;
    private volatile Thread thread;
    private volatile boolean stopped;

    LateAnswerCloser(long timeoutMs) {
        setTimeoutMs(timeoutMs);
    }

    void setTimeoutMs(long timeoutMs) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("the read timeout must be above 0 ms, not " + timeoutMs);
        }
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    long timeoutMs() {
        return TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
    }

    /** The time by which an answer to a request that begins to leave now must have come. */
    long dueFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /** Watches the connection from now until it is closed; the thread starts with the first connection. */
    void watch(CoreConnection connection) {
        connections.add(connection);
        if (thread == null) {
            start();
        }
    }

    void forget(CoreConnection connection) {
        connections.remove(connection);
    }

    /** Stops the thread; connections made after this are not watched. */
    void stop() {
        stopped = true;
        Thread running = thread;
        if (running != null) {
            LockSupport.unpark(running);
        }
    }

    private synchronized void start() {
        if (thread == null && !stopped) {
            Thread started = new Thread(this::run, "core-late-answer-closer");
            started.setDaemon(true);
            thread = started;
            started.start();
        }
    }

    private void run() {
        while (!stopped) {
            LockSupport.parkNanos(timeoutNanos / TICKS_PER_TIMEOUT);
            long now = System.nanoTime();
            for (CoreConnection connection : connections) {
                connection.closeIfLate(now);
            }
        }
    }
}
