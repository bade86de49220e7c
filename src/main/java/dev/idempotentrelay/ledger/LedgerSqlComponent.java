package dev.idempotentrelay.ledger;

import java.util.Map;
import org.apache.camel.Endpoint;
import org.apache.camel.component.sql.DefaultSqlEndpoint;
import org.apache.camel.component.sql.SqlComponent;
import org.apache.camel.component.sql.SqlEndpoint;
import org.apache.camel.component.sql.SqlHelper;
import org.apache.camel.support.ResourceHelper;

/**
 * The {@code sql:} component of the relay: camel-sql, with two additions on every endpoint, so that the routes keep
 * their plain {@code sql:classpath:sql/...} URIs and the SQL files one text for both databases:
 * <ul>
 * <li>property placeholders in a SQL file are resolved when the endpoint is made (the database's clock,
 * {@code {{relay.ledger.now}}} and the like, from {@link LedgerDialect}); camel-sql itself resolves them only in
 * the URI, where a statement of each database is named by its folder ({@code sql/{{relay.ledger.dialect}}/...});</li>
 * <li>{@link ParsedNamedParameters} on every endpoint that does not name a strategy of its own, and the
 * statement's parameter count from its text, so that no execution asks the driver for parameter metadata.</li>
 * </ul>
 * What the second is worth: with camel-sql's own strategy and no parameter count on the reads, resends of DONE GUIDs at
 * 32 connections ran at 0.75x the throughput and 1.45x the relay's CPU per reply on SQLite (six alternating rounds,
 * 2026-12-07; scripts/ledger/bench-pieces.sh, docs/performance.md#the-ledgers-own-pieces).
 */
public class LedgerSqlComponent extends SqlComponent {

    private final ParsedNamedParameters namedParameters = new ParsedNamedParameters();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        Endpoint endpoint = super.createEndpoint(uri, remaining, parameters);
        if (endpoint instanceof SqlEndpoint sql && ResourceHelper.hasScheme(sql.getQuery())) {
            // read as camel-sql's producer reads it (comment lines dropped); the property placeholders before its
            // :#name parameters are marked, as their SQL may hold such parameters
            String text = getCamelContext().resolvePropertyPlaceholders(SqlHelper.resolveQuery(getCamelContext(), sql.getQuery(), null));
            sql.setQuery(SqlHelper.resolvePlaceholders(text, sql.isUsePlaceholder() ? sql.getPlaceholder() : null));
        }
        if (endpoint instanceof DefaultSqlEndpoint sql && sql.getPrepareStatementStrategy() == null) {
            sql.setPrepareStatementStrategy(namedParameters);
            // the parameter count from the statement's text: without it camel-sql reads the driver's parameter
            // metadata at every execution, which pgjdbc fetches from the server (a round trip per statement)
            if (sql instanceof SqlEndpoint statement && statement.getParametersCount() == 0) {
                statement.setParametersCount(namedParameters.parameterCount(statement.getQuery()));
            }
        }
        return endpoint;
    }
}
