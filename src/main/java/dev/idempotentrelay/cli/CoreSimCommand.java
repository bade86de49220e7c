package dev.idempotentrelay.cli;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.ops.BatchedConsoleAppender;
import java.io.IOException;
import java.net.BindException;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** {@code core-sim}: the core account system simulator (SPEC section 4), until stopped. */
final class CoreSimCommand {

    private CoreSimCommand() {
    }

    static int run(String[] args) throws UsageException {
        Flags flags = Flags.parse("core-sim", args, 1, Set.of("port", "slow-ms"), Set.of());
        int port = (int) flags.number("core-sim", "port", 9201, 1);
        long slowMs = flags.number("core-sim", "slow-ms", 5000, 0);
        CoreSimulator simulator;
        try {
            simulator = CoreSimulator.start(port, slowMs);
        } catch (BindException e) {
            throw new UsageException(String.valueOf(e.getMessage()).contains("already in use")
                    ? "core-sim: port " + port + " is already in use (core simulator)"
                    : "core-sim: cannot listen on port " + port + ": " + e.getMessage());
        } catch (IOException e) {
            throw new UsageException("core-sim: cannot listen on port " + port + ": " + e.getMessage());
        }
        // after the log lines of the start, which wait in the log's buffer
        BatchedConsoleAppender.flushAll();
        System.out.println("core-sim: listening on " + simulator.url() + " (SLOW memos wait " + slowMs + " ms)");
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            stopped.countDown();
        }, "core-sim-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
