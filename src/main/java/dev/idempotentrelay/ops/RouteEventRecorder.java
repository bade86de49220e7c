package dev.idempotentrelay.ops;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeCompletedEvent;
import org.apache.camel.spi.CamelEvent.ExchangeEvent;
import org.apache.camel.spi.CamelEvent.ExchangeFailedEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSendingEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * Watches the routes from outside, so that the routes themselves carry no bookkeeping: a Camel event notifier
 * that sees each exchange sent to an endpoint and each channel exchange completed, and from them records
 * <ul>
 * <li>the ledger transitions, from the SQL statement sent and its update count (claim-new-guid.sql with
 * count 1 is none to SENT, record-done.sql is SENT to DONE, and so on);</li>
 * <li>each call to the core (an http endpoint): its time and whether the core answered;</li>
 * <li>the runs of resolve, reprocess and purge and the outcome of each row they handled;</li>
 * <li>the reply code of each channel exchange, once its reply is written;</li>
 * </ul>
 * into {@link RelayMetrics} and {@link CoreCallStatus}. On a transfer's own exchange it also leaves the
 * exchange properties {@value #STATE_CHANGE} (such as {@code none -> SENT -> DONE} or {@code DONE unchanged})
 * and {@value #CORE_TIME} (such as {@code 12 ms}) that receive-telegram's one INFO line per transfer shows.
 * Only sends to sql, http and the job routes are timed; other events are not even created.
 */
public class RouteEventRecorder extends EventNotifierSupport {

    public static final String STATE_CHANGE = "stateChange";
    public static final String CORE_TIME = "coreTime";
    static final String CHANNEL_ROUTE = "receive-telegram";

    /** SQL file -> {from, to}; a null "to" is the header newState. */
    private static final Map<String, String[]> TRANSITIONS = Map.of(
            "claim-new-guid", new String[] {"none", "SENT"},
            "reclaim-failed", new String[] {"FAILED", "SENT"},
            "reclaim-for-reprocess", new String[] {"FAILED", "SENT"},
            "record-done", new String[] {"SENT", "DONE"},
            "record-undecided", new String[] {"SENT", null},
            "mark-stale-sent", new String[] {"SENT", "UNKNOWN"},
            "resolve-done", new String[] {"UNKNOWN", "DONE"},
            "resolve-failed", new String[] {"UNKNOWN", "FAILED"},
            "purge-done", new String[] {"DONE", "purged"});

    /** Routes whose completed send is a job run or one row of it: route -> job. */
    private static final Map<String, String> JOB_RUNS = Map.of(
            "run-resolve", "resolve", "run-reprocess", "reprocess", "run-purge", "purge");
    private static final Map<String, String> JOB_ROWS = Map.of("inquire-core", "resolve", "resend-failed", "reprocess");

    private static final Pattern SQL_FILE = Pattern.compile("^sql:.*?sql/([a-z0-9-]+)\\.sql");
    private static final Pattern DIRECT = Pattern.compile("^direct:(?://)?([a-z0-9-]+)");

    /** What a sent-to endpoint is to the metrics: the core (its call: transfer or inquiry), a SQL file, a job route, or nothing watched. */
    private enum Kind { CORE, SQL, JOB, NONE }

    private record Target(Kind kind, String name) {
        static final Target NONE = new Target(Kind.NONE, null);
    }

    private final RelayMetrics metrics;
    private final CoreCallStatus coreCalls;
    /** endpoint URI -> its target, classified once per URI instead of by regex on every event */
    private final Map<String, Target> targets = new ConcurrentHashMap<>();

    public RouteEventRecorder(RelayMetrics metrics, CoreCallStatus coreCalls) {
        this.metrics = metrics;
        this.coreCalls = coreCalls;
        setIgnoreCamelContextEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeRedeliveryEvents(true);
        setIgnoreStepEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        if (event instanceof ExchangeSendingEvent sending) {
            return target(sending.getEndpoint()) != Target.NONE;
        }
        if (event instanceof ExchangeSentEvent sent) {
            return target(sent.getEndpoint()) != Target.NONE;
        }
        if (event instanceof ExchangeCompletedEvent || event instanceof ExchangeFailedEvent) {
            return CHANNEL_ROUTE.equals(((ExchangeEvent) event).getExchange().getFromRouteId());
        }
        return false;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeSentEvent sent) {
            sent(sent.getExchange(), sent.getEndpoint(), sent.getTimeTaken());
        } else if (event instanceof ExchangeCompletedEvent || event instanceof ExchangeFailedEvent) {
            Object code = ((ExchangeEvent) event).getExchange().getMessage().getHeader("rspCode");
            metrics.reply(code == null ? "none" : code.toString());
        }
    }

    private Target target(Endpoint endpoint) {
        return targets.computeIfAbsent(endpoint.getEndpointUri(), RouteEventRecorder::classify);
    }

    private static Target classify(String uri) {
        if (uri.startsWith("http:") || uri.startsWith("https:")) {
            String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
            return new Target(Kind.CORE, path.endsWith("/v1/transfers") ? "transfer" : "inquiry");
        }
        Matcher sql = SQL_FILE.matcher(uri);
        if (sql.find()) {
            return new Target(Kind.SQL, sql.group(1));
        }
        Matcher direct = DIRECT.matcher(uri);
        if (direct.find() && (JOB_RUNS.containsKey(direct.group(1)) || JOB_ROWS.containsKey(direct.group(1)))) {
            return new Target(Kind.JOB, direct.group(1));
        }
        return Target.NONE;
    }

    private void sent(Exchange exchange, Endpoint endpoint, long millis) {
        Target target = target(endpoint);
        switch (target.kind()) {
            case CORE -> coreCall(exchange, target.name(), millis);
            case SQL -> statement(exchange, target.name());
            case JOB -> {
                if (exchange.getException() == null) {
                    if (JOB_RUNS.containsKey(target.name())) {
                        metrics.jobRun(JOB_RUNS.get(target.name()));
                    } else {
                        metrics.jobRows(JOB_ROWS.get(target.name()), String.valueOf(exchange.getMessage().getBody()), 1);
                    }
                }
            }
            default -> {
            }
        }
    }

    private void statement(Exchange exchange, String file) {
        if (exchange.getException() != null) {
            return;
        }
        if (file.equals("find-by-guid")) {
            // the first statement of every transfer: the core is not called unless a POST follows
            if (exchange.getProperty(CORE_TIME) == null) {
                exchange.setProperty(CORE_TIME, "not called");
            }
            Object row = exchange.getMessage().getHeader("ledgerRow");
            if (row instanceof Map<?, ?> map) {
                exchange.setProperty(STATE_CHANGE, map.get("state") + " unchanged");
            } else {
                exchange.removeProperty(STATE_CHANGE); // a new GUID: its claim is the change
            }
            return;
        }
        String[] transition = TRANSITIONS.get(file);
        Integer rows = exchange.getMessage().getHeader("CamelSqlUpdateCount", Integer.class);
        if (transition == null || rows == null || rows < 1) {
            return;
        }
        String to = transition[1] != null ? transition[1] : exchange.getMessage().getHeader("newState", String.class);
        metrics.transition(transition[0], to, rows);
        switch (file) {
            case "mark-stale-sent" -> metrics.jobRows("resolve", "stale-sent-made-unknown", rows);
            case "purge-done" -> metrics.jobRows("purge", "deleted", rows);
            default -> {
                String change = exchange.getProperty(STATE_CHANGE, String.class);
                exchange.setProperty(STATE_CHANGE, change == null || change.endsWith(" unchanged")
                        ? transition[0] + " -> " + to : change + " -> " + to);
            }
        }
    }

    private void coreCall(Exchange exchange, String call, long millis) {
        Throwable failure = exchange.getException();
        String outcome = failure == null ? "answered" : notReached(failure) ? "not-reached" : "no-answer";
        metrics.coreCall(call, outcome, millis);
        coreCalls.record(call, failure == null, failure == null ? null : failure.toString());
        if (call.equals("transfer")) {
            exchange.setProperty(CORE_TIME, failure == null ? millis + " ms" : millis + " ms, " + outcome);
        }
    }

    /** The same exceptions as call-core's core-not-reached: the request certainly never left. */
    private static boolean notReached(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
                    || t.getClass().getName().equals("org.apache.hc.client5.http.ConnectTimeoutException")) {
                return true;
            }
        }
        return false;
    }
}
