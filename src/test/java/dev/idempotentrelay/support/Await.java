package dev.idempotentrelay.support;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Waits for a condition that an outside event makes true, checking it often, failing after a bound. */
public final class Await {

    private Await() {
    }

    public static void until(String what, Duration limit, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + limit + " waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
