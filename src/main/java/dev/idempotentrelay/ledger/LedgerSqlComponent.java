package dev.idempotentrelay.ledger;

import java.util.Map;
import org.apache.camel.Endpoint;
import org.apache.camel.component.sql.DefaultSqlEndpoint;
import org.apache.camel.component.sql.SqlComponent;

/**
 * The {@code sql:} component of the relay: camel-sql, with {@link ParsedNamedParameters} on every endpoint
 * that does not name a strategy of its own, so that the SQL files keep their {@code :#name} parameters and
 * the routes their plain {@code sql:classpath:sql/...} URIs.
 */
public class LedgerSqlComponent extends SqlComponent {

    private final ParsedNamedParameters namedParameters = new ParsedNamedParameters();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        Endpoint endpoint = super.createEndpoint(uri, remaining, parameters);
        if (endpoint instanceof DefaultSqlEndpoint sql && sql.getPrepareStatementStrategy() == null) {
            sql.setPrepareStatementStrategy(namedParameters);
        }
        return endpoint;
    }
}
