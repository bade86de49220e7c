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
 * together ({@link GroupCommittedWriteProducer});</li>
 * <li>otherwise (PostgreSQL, or {@code relay.db.group-commit=false}), camel-sql itself, on the pool: every write
 * commits alone.</li>
 * </ul>
 * The component stops the group-commit writer when Camel stops it, after the routes.
 */
public class LedgerWriteComponent extends LedgerSqlComponent {

    private final SqliteGroupCommit groupCommit;

    /** @param groupCommit the SQLite group-commit writer, or null for camel-sql's own producer on the pool */
    public LedgerWriteComponent(SqliteGroupCommit groupCommit) {
        this.groupCommit = groupCommit;
    }

    /** The group-commit writer, or null when every write commits alone. */
    public SqliteGroupCommit groupCommit() {
        return groupCommit;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        SqlEndpoint statement = (SqlEndpoint) super.createEndpoint(uri, remaining, parameters);
        return new LedgerWriteEndpoint(uri, this, statement, groupCommit);
    }

    @Override
    protected void doStop() throws Exception {
        if (groupCommit != null) {
            groupCommit.close();
        }
        super.doStop();
    }
}
