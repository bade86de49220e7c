package dev.idempotentrelay.ledger;

import java.util.Map;
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
 * An endpoint's {@code commitWaitMs} option is the most its caller waits for a commit where the writer bounds the wait
 * (PostgreSQL): the timed work's batches set it to {@code relay.jobs.commit-wait-ms}, claims keep the writer's bound.
 * The component stops its writer when Camel stops it, after the routes.
 */
public class LedgerWriteComponent extends LedgerSqlComponent {

    private final LedgerWriter writer;

    /**
     * @param dialect the ledger's database, whose own text of a statement is run where it has one
     * @param writer who runs the writes (the SQLite group-commit writer, the bounded PostgreSQL writer), or null for camel-sql's own producer on the pool
     */
    public LedgerWriteComponent(LedgerDialect dialect, LedgerWriter writer) {
        super(dialect);
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
        SqlEndpoint statement = (SqlEndpoint) super.createEndpoint(uri, remaining, parameters);
        return new LedgerWriteEndpoint(uri, this, statement, writer, commitWaitMs);
    }

    @Override
    protected void doStop() throws Exception {
        if (writer != null) {
            writer.close();
        }
        super.doStop();
    }
}
