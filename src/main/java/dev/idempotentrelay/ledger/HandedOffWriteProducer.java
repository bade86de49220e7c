package dev.idempotentrelay.ledger;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.component.sql.SqlConstants;
import org.apache.camel.component.sql.SqlEndpoint;
import org.apache.camel.component.sql.SqlHelper;
import org.apache.camel.support.DefaultProducer;

/**
 * Hands a ledger write to its {@link LedgerWriter} and waits for its commit: camel-sql's steps up to the binding
 * (the query prepared and the parameter values taken from the exchange by the endpoint's strategy), then the
 * statement and its values handed to the writer, which binds them with that same strategy. The exchange gets the
 * update count in {@code CamelSqlUpdateCount}, as from camel-sql, once the write is committed; a failed write (or
 * one the writer cannot take as committed) throws its {@link java.sql.SQLException}.
 */
final class HandedOffWriteProducer extends DefaultProducer {

    private final SqlEndpoint statement;
    private final SqlEndpoint group;
    private final LedgerWriter writer;
    private final ParsedNamedParameters strategy;
    private final Long commitWaitMs;
    private String query;
    /** Where the statement's {@code :#guid} stands among its values, or -1: the writer orders a group's writes by it. */
    private int guidAt = -1;
    /** The statement of a group of these writes, with {@code ?} markers, or null. */
    private String groupSql;

    HandedOffWriteProducer(LedgerWriteEndpoint endpoint, SqlEndpoint statement, SqlEndpoint group, LedgerWriter writer, Long commitWaitMs) {
        super(endpoint);
        this.statement = statement;
        this.group = group;
        this.writer = writer;
        this.commitWaitMs = commitWaitMs;
        // LedgerWriteComponent takes no statement that this strategy leaves to camel-sql
        this.strategy = (ParsedNamedParameters) statement.getPrepareStatementStrategy();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        // as camel-sql's producer does with a query that is text already (LedgerSqlComponent read the file)
        query = SqlHelper.resolveQuery(getEndpoint().getCamelContext(), statement.getQuery(),
                statement.isUsePlaceholder() ? statement.getPlaceholder() : null);
        guidAt = strategy.position(query, "guid");
        if (group != null) {
            groupSql = strategy.prepareQuery(SqlHelper.resolveQuery(getEndpoint().getCamelContext(), group.getQuery(), null), true, null);
        }
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        String prepared = strategy.prepareQuery(query, true, exchange);
        // LedgerSqlComponent set it from the statement's text
        int expected = statement.getParametersCount();
        List<Object> values = new ArrayList<>(expected);
        if (expected > 0 || statement.isAlwaysPopulateStatement()) {
            Iterator<?> i = strategy.createPopulateIterator(query, prepared, expected, exchange, exchange.getIn().getBody());
            while (i != null && i.hasNext()) {
                values.add(i.next());
            }
        }
        int count;
        if (commitWaitMs != null) {
            count = writer.write(prepared, values, strategy, commitWaitMs);
        } else {
            Object guid = guidAt >= 0 && guidAt < values.size() ? values.get(guidAt) : null;
            count = writer.write(prepared, values, strategy, guid == null ? null : guid.toString(), groupSql);
        }
        exchange.getIn().setHeader(SqlConstants.SQL_UPDATE_COUNT, count);
    }
}
