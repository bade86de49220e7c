package dev.idempotentrelay.ledger;

import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.component.sql.SqlEndpoint;
import org.apache.camel.support.DefaultEndpoint;
import org.apache.camel.support.service.ServiceHelper;

/**
 * A {@code ledger-write:} endpoint: one write statement of a SQL file, as the {@link SqlEndpoint} camel-sql made of
 * it, run by the component's {@link LedgerWriter} when there is one ({@link SqliteGroupCommit} on SQLite,
 * {@link PostgresGroupCommit} on PostgreSQL), else by camel-sql's own producer. A producer only; one statement per
 * exchange (no batch, no SQL from the body).
 */
public class LedgerWriteEndpoint extends DefaultEndpoint {

    private final SqlEndpoint statement;
    private final SqlEndpoint group;
    private final LedgerWriter writer;
    private final Long commitWaitMs;

    /**
     * @param group the statement of a group of these writes (option groupedAs), or null
     * @param commitWaitMs the most a caller waits for a commit where the writer bounds it, or null for the writer's bound
     */
    LedgerWriteEndpoint(String uri, LedgerWriteComponent component, SqlEndpoint statement, SqlEndpoint group, LedgerWriter writer,
            Long commitWaitMs) {
        super(uri, component);
        if (statement.isBatch() || statement.isUseMessageBodyForSql()) {
            throw new IllegalArgumentException(uri + ": a ledger write is one statement of its SQL file (no batch, no SQL from the body)");
        }
        this.statement = statement;
        this.group = group;
        this.writer = writer;
        this.commitWaitMs = commitWaitMs;
    }

    /** The camel-sql endpoint of the statement: its SQL, its prepare-statement strategy, its options. */
    public SqlEndpoint statement() {
        return statement;
    }

    @Override
    public Producer createProducer() throws Exception {
        return writer != null ? new HandedOffWriteProducer(this, statement, group, writer, commitWaitMs) : statement.createProducer();
    }

    @Override
    public Consumer createConsumer(Processor processor) {
        throw new UnsupportedOperationException(getEndpointUri() + ": a ledger write is sent to, not consumed from");
    }

    @Override
    protected void doInit() throws Exception {
        super.doInit();
        ServiceHelper.initService(statement);
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        ServiceHelper.startService(statement);
    }

    @Override
    protected void doStop() throws Exception {
        ServiceHelper.stopService(statement);
        super.doStop();
    }
}
