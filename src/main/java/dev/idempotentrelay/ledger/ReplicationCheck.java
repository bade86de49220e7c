package dev.idempotentrelay.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a claim this relay commits on its PostgreSQL ledger is acknowledged only once it is on a synchronous
 * standby (SPEC section 9): a failover to an asynchronous standby can lose a claim that the primary acknowledged,
 * and a channel's resend of that GUID then finds no row and is sent to the core a second time. Read from the server
 * by sql/show-replication.sql: this session's {@code synchronous_commit}, the server's
 * {@code synchronous_standby_names}, and the standbys in {@code pg_stat_replication}.
 * <ul>
 * <li>{@link Status#NO_STANDBY}: no standby streams from the server; a single server (or a replication this user
 * cannot see, such as a managed service's own below PostgreSQL). Fine as it is.</li>
 * <li>{@link Status#SYNCHRONOUS}: standbys, {@code synchronous_standby_names} set and {@code synchronous_commit}
 * {@code on}, {@code remote_write} or {@code remote_apply}: a commit returns once a synchronous standby has it, or
 * waits.</li>
 * <li>{@link Status#ASYNCHRONOUS}: standbys, and a commit that returns before any of them has it
 * ({@code synchronous_standby_names} empty, or {@code synchronous_commit} {@code local} or {@code off} for the
 * relay's sessions). A relay does not start on it unless {@code relay.db.allow-async-replication}, and then says so
 * in a WARN line, in {@code /health} and in {@code relay_ledger_unsafe_replication}.</li>
 * </ul>
 * Checked at start ({@link #checkAtStart}) and every {@code relay.db.check-every} seconds ({@link #check}); a change
 * is logged, and the metric keeps the last status seen until the replication is synchronous (or there is no standby).
 */
public final class ReplicationCheck {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationCheck.class);

    /** The values of synchronous_commit with which a commit waits for the synchronous standbys. */
    private static final Set<String> WAITING_COMMITS = Set.of("on", "remote_write", "remote_apply");

    public enum Status { SYNCHRONOUS, NO_STANDBY, ASYNCHRONOUS, UNKNOWN }

    /** What a check found: the status, and what it is made of in words. */
    public record Verdict(Status status, String detail) {
    }

    /** One row of sql/show-replication.sql: the settings, and one standby (pid null: no standby). */
    record Row(String synchronousCommit, String standbyNames, Integer pid, String name, String state, String syncState) {
    }

    /** A relay refused to start on a ledger whose replication can lose an acknowledged claim. */
    public static final class UnsafeReplicationException extends RuntimeException {
        UnsafeReplicationException(String message) {
            super(message);
        }
    }

    private final SqlFile query = SqlFile.load("show-replication");
    private final DataSource pool;
    private final String ledger;
    private final boolean allowed;
    private volatile Verdict last = new Verdict(Status.UNKNOWN, "not checked yet");
    private volatile String failure;

    /**
     * @param ledger the ledger as a log line names it ({@link LedgerDialect#describe})
     * @param allowed relay.db.allow-async-replication: start on asynchronous replication anyway
     */
    public ReplicationCheck(DataSource pool, String ledger, boolean allowed) {
        this.pool = pool;
        this.ledger = ledger;
        this.allowed = allowed;
    }

    /**
     * The check at start: logged, and thrown as {@link UnsafeReplicationException} (one line naming the risk and the
     * setting) when the replication is asynchronous and not allowed. A check that cannot run is a WARN line.
     */
    public Verdict checkAtStart() {
        Verdict verdict;
        try {
            verdict = read();
        } catch (SQLException e) {
            failure = e.getMessage();
            LOG.warn("cannot tell whether the ledger's commits wait for a synchronous standby: {}", e.getMessage());
            return last;
        }
        last = verdict;
        if (verdict.status() == Status.ASYNCHRONOUS) {
            if (!allowed) {
                throw new UnsafeReplicationException(risk(verdict) + ". Make a standby synchronous (synchronous_standby_names, "
                        + "synchronous_commit on), or start with --allow-async-replication (relay.db.allow-async-replication=true) "
                        + "to take that risk");
            }
            LOG.warn("{}; started anyway, as relay.db.allow-async-replication says", risk(verdict));
        } else {
            LOG.info("ledger replication: {} ({})", words(verdict.status()), verdict.detail());
        }
        return verdict;
    }

    /** The check every relay.db.check-every seconds (routes/ledger-watch.camel.yaml): a change is logged. */
    public void check() {
        Verdict verdict;
        try {
            verdict = read();
            failure = null;
        } catch (SQLException e) {
            // the ledger unreachable: the probe commit reports it; the last status seen stays
            failure = e.getMessage();
            return;
        }
        Verdict before = last;
        last = verdict;
        if (verdict.status() == before.status()) {
            return;
        }
        if (verdict.status() == Status.ASYNCHRONOUS) {
            if (allowed) {
                LOG.warn("{}; going on, as relay.db.allow-async-replication says", risk(verdict));
            } else {
                LOG.error("{}; this relay goes on serving, but would not start so: make a standby synchronous", risk(verdict));
            }
        } else {
            LOG.info("ledger replication: {} ({})", words(verdict.status()), verdict.detail());
        }
    }

    /** The last status seen. */
    public Verdict verdict() {
        return last;
    }

    /** Whether the last check found asynchronous standbys and no synchronous one (relay_ledger_unsafe_replication). */
    public boolean unsafe() {
        return last.status() == Status.ASYNCHRONOUS;
    }

    /** For GET /health: the status, its detail, whether the relay was allowed to run so, and a failed last check. */
    public Map<String, Object> view() {
        Map<String, Object> view = new LinkedHashMap<>();
        Verdict verdict = last;
        view.put("status", verdict.status().name());
        view.put("detail", verdict.detail());
        if (verdict.status() == Status.ASYNCHRONOUS) {
            view.put("risk", "a claim the primary acknowledged can be lost at a failover, and its transfer sent to the core twice");
            view.put("allowed", allowed);
        }
        if (failure != null) {
            view.put("lastCheckFailed", failure);
        }
        return view;
    }

    private Verdict read() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(query.jdbc());
                ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                rows.add(new Row(rs.getString("synchronous_commit"), rs.getString("standby_names"), (Integer) rs.getObject("pid"),
                        rs.getString("application_name"), rs.getString("state"), rs.getString("sync_state")));
            }
        }
        return verdict(rows);
    }

    /** The verdict on the rows of sql/show-replication.sql. */
    static Verdict verdict(List<Row> rows) {
        if (rows.isEmpty()) {
            return new Verdict(Status.UNKNOWN, "the server said nothing of its replication");
        }
        String commit = rows.get(0).synchronousCommit();
        String names = rows.get(0).standbyNames() == null ? "" : rows.get(0).standbyNames().strip();
        List<String> standbys = new ArrayList<>();
        boolean synchronousConnected = false;
        boolean hidden = false;
        for (Row row : rows) {
            if (row.pid() == null) {
                continue;
            }
            if (row.syncState() == null) {
                hidden = true;
                standbys.add("pid " + row.pid() + " (name and state hidden from this database user)");
            } else {
                standbys.add(row.name() + " (" + row.syncState() + ", " + row.state() + ")");
                synchronousConnected |= row.syncState().equals("sync") || row.syncState().equals("quorum");
            }
        }
        String settings = "synchronous_commit " + commit + ", synchronous_standby_names '" + names + "'";
        if (standbys.isEmpty()) {
            return new Verdict(Status.NO_STANDBY, "no standby streams from the ledger's server; " + settings);
        }
        String detail = settings + "; standbys: " + String.join(", ", standbys);
        if (names.isEmpty()) {
            return new Verdict(Status.ASYNCHRONOUS, detail + "; synchronous_standby_names is empty");
        }
        if (!WAITING_COMMITS.contains(commit)) {
            return new Verdict(Status.ASYNCHRONOUS, detail + "; synchronous_commit " + commit
                    + " for the relay's sessions does not wait for a standby");
        }
        if (!hidden && !synchronousConnected) {
            detail += "; no synchronous standby is connected: commits wait until one is";
        }
        return new Verdict(Status.SYNCHRONOUS, detail);
    }

    private String risk(Verdict verdict) {
        return "the ledger " + ledger + " has asynchronous standbys and no synchronous one (" + verdict.detail()
                + "): a claim it acknowledges can be lost at a failover, and its transfer sent to the core a second time";
    }

    private static String words(Status status) {
        return switch (status) {
            case SYNCHRONOUS -> "commits wait for a synchronous standby";
            case NO_STANDBY -> "no standby";
            case ASYNCHRONOUS -> "asynchronous standbys and no synchronous one";
            case UNKNOWN -> "unknown";
        };
    }
}
