package dev.idempotentrelay.ledger;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.camel.Endpoint;
import org.apache.camel.component.sql.SqlEndpoint;

/**
 * The {@code ledger-write:} component: a ledger write, named as such in the routes
 * ({@code ledger-write:classpath:sql/claim-new-guid.sql}), where reads stay plain {@code sql:}. Its endpoints are
 * the relay's {@code sql:} endpoints (the same SQL file, placeholders and named parameters, see
 * {@link LedgerSqlComponent}); what differs is who runs the statement:
 * <ul>
 * <li>on SQLite with group commit, {@link SqliteGroupCommit}, which commits the writes of concurrent exchanges
 * together ({@link HandedOffWriteProducer});</li>
 * <li>on PostgreSQL, {@link PostgresGroupCommit}, which commits the claims and records of concurrent exchanges
 * together, or with relay.db.postgresql.group-commit=false {@link BoundedPoolWriter}, which commits each write alone
 * on the pool; either way its caller waits at most
 * {@code relay.db.connect-wait-ms} for a commit that came back plainly;</li>
 * <li>otherwise ({@code relay.db.group-commit=false} on SQLite), camel-sql itself, on the pool: every write commits
 * alone.</li>
 * </ul>
 * An endpoint's {@code groupedAs} option names the statement that runs a group of its writes at once where the writer
 * groups them (PostgreSQL): a SQL file whose parameters are the statement's, in the same order, each an array, and that
 * returns the GUIDs it changed ({@code sql/postgresql/claim-new-guids.sql}). Elsewhere it is not used.
 * An endpoint's {@code commitWaitMs} option is the most its caller waits for a commit where the writer bounds the wait
 * (PostgreSQL): the timed work's batches set it to {@code relay.jobs.commit-wait-ms}, claims keep the writer's bound.
 * The component stops its writer when Camel stops it, after the routes.
 */
public class LedgerWriteComponent extends LedgerSqlComponent {

    private final LedgerWriter writer;

    /**
     * @param writer who runs the writes (the SQLite group-commit writer, the bounded PostgreSQL writer), or null for camel-sql's own producer on the pool
     */
    public LedgerWriteComponent(LedgerWriter writer) {
        this.writer = writer;
    }

    /** Who runs the writes, or null when camel-sql's producer does. */
    public LedgerWriter writer() {
        return writer;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        Long commitWaitMs = getAndRemoveParameter(parameters, "commitWaitMs", Long.class);
        if (commitWaitMs != null && commitWaitMs < 1) {
            throw new IllegalArgumentException(uri + ": commitWaitMs must be at least 1, not " + commitWaitMs);
        }
        String groupedAs = getAndRemoveParameter(parameters, "groupedAs", String.class);
        SqlEndpoint statement = (SqlEndpoint) super.createEndpoint(uri, remaining, parameters);
        // the writers bind a write's values by the one parser of named parameters: what it leaves to camel-sql is refused
        if (!(statement.getPrepareStatementStrategy() instanceof ParsedNamedParameters names) || !statement.isAllowNamedParameters()
                || names.names(statement.getQuery()) == null) {
            throw new IllegalArgumentException(uri + ": a ledger write takes :#name parameters only: no Simple expressions, IN"
                    + " lists, prepareStatementStrategy or allowNamedParameters=false");
        }
        SqlEndpoint group = null;
        if (groupedAs != null && writer instanceof PostgresGroupCommit) {
            group = (SqlEndpoint) super.createEndpoint("ledger-write:" + groupedAs, groupedAs, new HashMap<>());
            if (!Objects.equals(names.names(statement.getQuery()), names.names(group.getQuery()))) {
                throw new IllegalArgumentException(uri + ": groupedAs " + groupedAs + " must take the parameters of the statement, "
                        + names.names(statement.getQuery()) + ", in that order, not " + names.names(group.getQuery()));
            }
        }
        return new LedgerWriteEndpoint(uri, this, statement, group, writer, commitWaitMs);
    }

    @Override
    protected void doStop() throws Exception {
        if (writer != null) {
            writer.close();
        }
        super.doStop();
    }
}
