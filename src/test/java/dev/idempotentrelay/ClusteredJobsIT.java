package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two packaged relays with --jobs-clustered on one PostgreSQL ledger (SPEC section 9, issue 12 item 5): started at
 * once on an empty database, both start (the ledger's and Quartz's tables applied once); each timer then fires on one
 * relay at a time, the runs of the three jobs split between them, no more runs in all than one relay alone would make;
 * killed, one relay leaves its timers to the other, which takes them over once it missed its check-ins.
 */
class ClusteredJobsIT {

    private static final List<String> JOBS = List.of("resolve", "reprocess", "purge");

    @TempDir
    Path dir;

    @Test
    void twoClusteredRelaysShareEachTimerOneRunAtATimeAndTheSurvivorOfAKillKeepsFiringThemAll() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            String ledger = Postgres.shared().newLedger();
            int portA = Ports.free();
            int portB = Ports.free();
            int adminA = Ports.free();
            int adminB = Ports.free();
            // check-ins every second: a killed relay's timers move after about 1 s + 7.5 s (Quartz's margin)
            Map<String, String> env = Map.of("RELAY_JOBS_CLUSTER_CHECKIN_MS", "1000");
            try (JarProcess a = JarProcess.start(dir, env, relayArgs(ledger, core.url(), portA, adminA));
                    JarProcess b = JarProcess.start(dir, env, relayArgs(ledger, core.url(), portB, adminB))) {
                a.awaitLine("listening on port " + portA, Duration.ofSeconds(60));
                b.awaitLine("listening on port " + portB, Duration.ofSeconds(60));
                AdminClient adminOfA = new AdminClient("http://127.0.0.1:" + adminA);
                AdminClient adminOfB = new AdminClient("http://127.0.0.1:" + adminB);
                Await.until("both relays checked in to Quartz's tables", Duration.ofSeconds(30),
                        () -> column(ledger, "SELECT instance_name FROM qrtz_scheduler_state").size() == 2);
                String idOfB = column(ledger, "SELECT instance_name FROM qrtz_scheduler_state").stream()
                        .filter(id -> id.contains("-" + portB + "-")).findFirst().orElseThrow();

                // every job fires each second, once across the cluster: watched until resolve ran eight times, no run of a
                // job beside another run of it (Quartz's executing entries), and the runs of each job on both relays
                // together are the fires of its one trigger (TIMES_TRIGGERED: in-memory timers would run it in each relay)
                List<String> overlaps = new ArrayList<>();
                Await.until("eight resolve runs across both relays", Duration.ofSeconds(60), () -> {
                    overlaps.addAll(column(ledger, "SELECT trigger_name FROM qrtz_fired_triggers WHERE state = 'EXECUTING' "
                            + "GROUP BY trigger_name HAVING COUNT(*) > 1"));
                    return runs(adminOfA).get("resolve") + runs(adminOfB).get("resolve") >= 8;
                });
                assertEquals(List.of(), overlaps, "runs of one job at once");
                Map<String, Double> firedBefore = timesTriggered(ledger);
                Map<String, Double> onA = runs(adminOfA);
                Map<String, Double> onB = runs(adminOfB);
                Map<String, Double> firedAfter = timesTriggered(ledger);
                for (String job : JOBS) {
                    double both = onA.get(job) + onB.get(job);
                    // a run is counted when it ends: the one of each job in flight may still be missing
                    assertTrue(both <= firedAfter.get(job) && both >= firedBefore.get(job) - 1,
                            job + ": " + onA.get(job) + " runs on A and " + onB.get(job) + " on B, its trigger fired "
                                    + firedBefore.get(job) + " to " + firedAfter.get(job) + " times");
                }
                double ranOnA = onA.values().stream().mapToDouble(Double::doubleValue).sum();
                double ranOnB = onB.values().stream().mapToDouble(Double::doubleValue).sum();
                assertTrue(ranOnA > 0 && ranOnB > 0, "the runs split between the relays: " + onA + " on A, " + onB + " on B");

                // A killed: B takes over A's timers (and its place in Quartz's tables) and runs every job on
                a.kill();
                Map<String, Double> atKill = runs(adminOfB);
                Await.until("B ran every job twice more", Duration.ofSeconds(45), () -> {
                    Map<String, Double> now = runs(adminOfB);
                    return JOBS.stream().allMatch(job -> now.get(job) - atKill.get(job) >= 2);
                });
                Await.until("B recovered A's instance", Duration.ofSeconds(30),
                        () -> column(ledger, "SELECT instance_name FROM qrtz_scheduler_state").equals(List.of(idOfB)));
                // neither relay logged a WARN or an ERROR: not at the start together, not while sharing, not at the take-over
                for (JarProcess relay : List.of(a, b)) {
                    assertTrue(relay.output().stream().noneMatch(l -> l.contains(" ERROR ") || l.contains(" WARN ")),
                            relay.output().toString());
                }
            }
        }
    }

    private static String[] relayArgs(String ledger, String core, int port, int adminPort) {
        return new String[] {"run", "--db", ledger, "--port", Integer.toString(port), "--core", core,
                "--admin-port", Integer.toString(adminPort), "--jobs-clustered", "--every", "1", "--purge-every", "1",
                "--read-timeout-ms", "1000", "--min-age", "2", "--sent-stale-after", "2"};
    }

    /** relay_job_runs_total by job, from the relay's GET /metrics. */
    private static Map<String, Double> runs(AdminClient admin) throws Exception {
        Map<String, Double> samples = admin.metrics();
        Map<String, Double> runs = new TreeMap<>();
        for (String job : JOBS) {
            runs.put(job, samples.getOrDefault("relay_job_runs_total{job=\"" + job + "\"}", 0.0));
        }
        return runs;
    }

    /** How many times each job's trigger fired, across the cluster (Quartz's TIMES_TRIGGERED). */
    private static Map<String, Double> timesTriggered(String ledger) throws Exception {
        Map<String, Double> fired = new TreeMap<>();
        for (String row : column(ledger, "SELECT trigger_name || ' ' || times_triggered FROM qrtz_simple_triggers")) {
            String[] parts = row.split(" ");
            fired.put(Map.of("resolve-unknown", "resolve", "reprocess-failed", "reprocess", "purge-ledger", "purge").get(parts[0]),
                    Double.parseDouble(parts[1]));
        }
        return fired;
    }

    private static List<String> column(String ledger, String sql) throws Exception {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(ledger); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
