package dev.idempotentrelay.jobs;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.Body;
import org.apache.camel.Header;

/** The one-line summary of a timed run, from the outcome of each row it handled. */
public class JobSummary {

    public String resolve(@Body List<?> outcomes, @Header("staleCount") Integer stale) {
        Map<String, Integer> n = count(outcomes);
        String line = String.format("resolve: %d done, %d failed, %d kept",
                n.getOrDefault("done", 0), n.getOrDefault("failed", 0), n.getOrDefault("kept", 0));
        if (stale != null && stale > 0) {
            line += ", " + stale + " stale SENT made UNKNOWN";
        }
        return line + others(n, "done", "failed", "kept");
    }

    public String reprocess(@Body List<?> outcomes) {
        Map<String, Integer> n = count(outcomes);
        return String.format("reprocess: %d done, %d failed, %d unknown, %d skipped",
                n.getOrDefault("done", 0), n.getOrDefault("failed", 0), n.getOrDefault("unknown", 0),
                n.getOrDefault("skipped", 0)) + others(n, "done", "failed", "unknown", "skipped");
    }

    /** Outcomes by name; the rows of a run that handled nothing are maps, not outcomes, and count as none. */
    private static Map<String, Integer> count(List<?> outcomes) {
        Map<String, Integer> n = new TreeMap<>();
        if (outcomes != null) {
            for (Object outcome : outcomes) {
                if (outcome instanceof Map) {
                    continue;
                }
                n.merge(outcome instanceof String ? (String) outcome : "error", 1, Integer::sum);
            }
        }
        return n;
    }

    private static String others(Map<String, Integer> n, String... known) {
        StringBuilder more = new StringBuilder();
        n.forEach((name, count) -> {
            if (!List.of(known).contains(name)) {
                more.append(", ").append(count).append(' ').append(name);
            }
        });
        return more.toString();
    }
}
