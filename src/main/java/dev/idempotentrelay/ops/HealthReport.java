package dev.idempotentrelay.ops;

import dev.idempotentrelay.ledger.ReplicationCheck;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;

/**
 * The answer of GET /health, from camel-health's readiness checks: {@code context}, one {@code route:<id>} per
 * route (a route that should run and is not started is DOWN), and {@code ledger}
 * ({@link LedgerCommitCheck}: a probe commit within relay.db.connect-wait-ms). Ready (HTTP 200, status UP) only
 * when every one is UP; otherwise HTTP 503, status DOWN. Beside the verdict it says whether the core answered the
 * relay's last call, which does not decide readiness: a relay whose core is down still answers its channels (E902),
 * and stays ready to. On a PostgreSQL ledger it also says what the relay's commits wait for ({@code replication},
 * {@link ReplicationCheck}), which does not decide readiness either.
 */
public class HealthReport {

    private final CoreCallStatus coreCalls;
    private final ReplicationCheck replication;

    /** @param replication the replication check of a PostgreSQL ledger; null on SQLite */
    public HealthReport(CoreCallStatus coreCalls, ReplicationCheck replication) {
        this.coreCalls = coreCalls;
        this.replication = replication;
    }

    /** Sets the body to the report (status, routes, ledger, core, replication, checks) and the HTTP status code. */
    public void report(Exchange exchange) {
        Collection<HealthCheck.Result> results = HealthCheckHelper.invokeReadiness(exchange.getContext());
        List<HealthCheck.Result> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparing(r -> r.getCheck().getId()));
        boolean ready = !sorted.isEmpty();
        boolean routes = true;
        String ledger = "UNKNOWN";
        List<Map<String, Object>> checks = new ArrayList<>();
        for (HealthCheck.Result result : sorted) {
            String id = result.getCheck().getId();
            boolean up = result.getState() == HealthCheck.State.UP;
            ready &= up;
            if (id.equals("context") || id.startsWith("route:")) {
                routes &= up;
            } else if (id.equals("ledger")) {
                ledger = result.getState().name();
            }
            Map<String, Object> check = new LinkedHashMap<>();
            check.put("id", id);
            check.put("status", result.getState().name());
            result.getMessage().ifPresent(message -> check.put("message", message));
            checks.add(check);
        }
        ready &= ledger.equals("UP");
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("status", ready ? "UP" : "DOWN");
        report.put("routes", routes ? "UP" : "DOWN");
        report.put("ledger", ledger);
        report.put("core", coreCalls.view());
        if (replication != null) {
            report.put("replication", replication.view());
        }
        report.put("checks", checks);
        exchange.getMessage().setBody(report);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, ready ? 200 : 503);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
    }
}
