package dev.idempotentrelay.jobs;

import dev.idempotentrelay.ops.RelayMetrics;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.Exchange;

/**
 * The end of one resolve or reprocess run: its one-line summary becomes the body (what the one-shot
 * command prints and the timed route logs), variable {@code rowsHandled} says how many rows it handled (the
 * timed routes log only a run that handled one), and the run and its rows are counted in
 * {@code relay_job_runs_total{job}} and {@code relay_job_rows_total{job,outcome}}. The outcomes of a run are the
 * bodies its split collected (done, failed, kept, ...). The route's step names its job: {@code bean jobRunSummary,
 * method summarize(*, 'resolve')}; a purge run ends in {@link PurgeRun}.
 */
public class JobRunSummary {

    private static final Map<String, List<String>> OUTCOMES = Map.of(
            "resolve", List.of("done", "failed", "kept"),
            "reprocess", List.of("done", "failed", "unknown", "skipped"));

    private final RelayMetrics metrics;

    public JobRunSummary(RelayMetrics metrics) {
        this.metrics = metrics;
    }

    public void summarize(Exchange exchange, String job) {
        if (!OUTCOMES.containsKey(job)) {
            throw new IllegalArgumentException("no such job: " + job);
        }
        Map<String, Integer> n = new TreeMap<>();
        count(exchange.getMessage().getBody(List.class), n);
        StringBuilder line = new StringBuilder(job).append(':');
        String separator = " ";
        for (String outcome : OUTCOMES.get(job)) {
            line.append(separator).append(n.getOrDefault(outcome, 0)).append(' ').append(outcome);
            separator = ", ";
        }
        int handled = n.values().stream().mapToInt(Integer::intValue).sum();
        Integer stale = exchange.getVariable("staleCount", Integer.class);
        if (job.equals("resolve") && stale != null && stale > 0) {
            line.append(", ").append(stale).append(" stale SENT made UNKNOWN");
            metrics.jobRows(job, "stale-sent-made-unknown", stale);
            handled += stale;
        }
        n.forEach((outcome, count) -> {
            if (!OUTCOMES.get(job).contains(outcome)) {
                line.append(", ").append(count).append(' ').append(outcome);
            }
            if (count > 0) {
                metrics.jobRows(job, outcome, count);
            }
        });
        metrics.jobRun(job);
        exchange.setVariable("rowsHandled", handled);
        exchange.getMessage().setBody(line.toString());
    }

    /** Outcomes by name; the rows of a run that handled nothing are maps, not outcomes, and count as none. */
    private static void count(List<?> outcomes, Map<String, Integer> n) {
        if (outcomes == null) {
            return;
        }
        for (Object outcome : outcomes) {
            if (outcome instanceof Map) {
                continue;
            }
            n.merge(outcome instanceof String ? (String) outcome : "error", 1, Integer::sum);
        }
    }
}
