package dev.idempotentrelay.ops;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness check {@code ledger}: UP when a probe commit completes within {@code relay.db.connect-wait-ms}. The probe
 * is a real write, committed as every ledger write is (direct:probe-ledger-commit: on SQLite by the group-commit
 * writer, on PostgreSQL on the pool and, with a synchronous standby, once the standby has it): one row per relay in
 * {@code ledger_probe}, written again each time. So it is DOWN on a read-only or full disk, a write lock held past
 * the busy timeout, an unreachable database, a demoted server, and commits that hang waiting for a synchronous
 * standby that is gone. Camel's health-check registry finds it in the bean registry; GET /health runs it, and so does
 * the ledger watch every {@code relay.db.check-every} seconds. Its last verdict is {@code relay_ledger_writable}.
 * <p>
 * One probe at a time: a call while a probe is still on its way waits for that one (within the bound) instead of
 * starting another, so that commits that hang leave one probe waiting on the server, not one per call.
 */
public class LedgerCommitCheck extends AbstractHealthCheck {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerCommitCheck.class);

    private final String relay;
    private final long boundMs;
    private final ExecutorService prober = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "ledger-probe");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<Void> inFlight; // guarded by this
    private ProducerTemplate template; // guarded by this
    private volatile Boolean writable; // null until the first probe

    /**
     * @param relay this relay's row in ledger_probe
     * @param boundMs how long the probe commit may take (relay.db.connect-wait-ms)
     */
    public LedgerCommitCheck(String relay, long boundMs) {
        super("relay", "ledger");
        this.relay = relay;
        this.boundMs = boundMs;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    /** Whether the last probe commit completed in time (false before the first). */
    public boolean writable() {
        return Boolean.TRUE.equals(writable);
    }

    /** One probe commit, or the one on its way; null when it completed within the bound, else why not. */
    public String probe() {
        CompletableFuture<Void> probe;
        synchronized (this) {
            if (inFlight == null || inFlight.isDone()) {
                if (template == null) {
                    template = getCamelContext().createProducerTemplate();
                }
                ProducerTemplate sender = template;
                inFlight = CompletableFuture.runAsync(() -> {
                    Exchange done = sender.send("direct:probe-ledger-commit", exchange -> exchange.setVariable("relay", relay));
                    Object failure = done.getException() != null ? done.getException().getMessage() : done.getVariable("probeFailure");
                    if (failure != null) {
                        throw new IllegalStateException(String.valueOf(failure));
                    }
                }, prober);
            }
            probe = inFlight;
        }
        String why;
        try {
            probe.get(boundMs, TimeUnit.MILLISECONDS);
            why = null;
        } catch (TimeoutException e) {
            why = "the probe commit did not complete within " + boundMs + " ms";
        } catch (ExecutionException e) {
            why = e.getCause().getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = "interrupted while waiting for the probe commit";
        }
        verdict(why);
        return why;
    }

    private void verdict(String why) {
        Boolean before = writable;
        writable = why == null;
        if (why != null && !Boolean.FALSE.equals(before)) {
            LOG.warn("the ledger takes no commit: {}", why);
        } else if (why == null && Boolean.FALSE.equals(before)) {
            LOG.info("the ledger takes commits again");
        }
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        String why = probe();
        if (why == null) {
            builder.up();
        } else {
            builder.message("the ledger cannot be written: " + why);
            builder.down();
        }
    }
}
