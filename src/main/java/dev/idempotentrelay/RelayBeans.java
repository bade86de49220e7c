package dev.idempotentrelay;

import dev.idempotentrelay.jobs.JobRunSummary;
import dev.idempotentrelay.jobs.PurgeRun;
import dev.idempotentrelay.jobs.RowBatch;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerRowColumns;
import dev.idempotentrelay.ledger.LedgerRowView;
import dev.idempotentrelay.ledger.LedgerWriteComponent;
import dev.idempotentrelay.ledger.LedgerWriter;
import dev.idempotentrelay.ledger.RecentGuids;
import dev.idempotentrelay.ledger.ReplicationCheck;
import dev.idempotentrelay.ops.AccountMaskingFormatter;
import dev.idempotentrelay.ops.CoreCallClock;
import dev.idempotentrelay.ops.CoreCallOutcome;
import dev.idempotentrelay.ops.CoreCallStatus;
import dev.idempotentrelay.ops.GuidMdcInterceptStrategy;
import dev.idempotentrelay.ops.HealthReport;
import dev.idempotentrelay.ops.LedgerCommitCheck;
import dev.idempotentrelay.ops.LedgerTransition;
import dev.idempotentrelay.ops.RelayMetrics;
import dev.idempotentrelay.ops.ReplyCounter;
import dev.idempotentrelay.ops.RoutePage;
import dev.idempotentrelay.ops.RouteReport;
import dev.idempotentrelay.ops.StepCounter;
import dev.idempotentrelay.telegram.CoreAnswerReader;
import dev.idempotentrelay.telegram.CoreTransferRequest;
import dev.idempotentrelay.telegram.TelegramReply;
import dev.idempotentrelay.telegram.TelegramValidator;
import dev.idempotentrelay.tracing.RelayTracing;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertyInject;
import org.apache.camel.processor.aggregate.GroupedBodyAggregationStrategy;
import org.apache.camel.spi.Registry;

/**
 * The beans the routes call, in Camel's configuration style (camel-examples main-yaml's MyConfiguration): a
 * {@link BindToRegistry} per bean, named as the routes name it, its settings injected from the {@code relay.*}
 * properties ({@link PropertyInject}). Beside it, named by {@code camel.main.configuration-classes} before it:
 * {@link ChannelBeans} (the listener's pipeline and TLS) and {@link LedgerBeans} (the pool, the writers, the SQL
 * components). The beans that count go through one {@link RelayMetrics}, made with this class, and what depends on the
 * ledger's beans is wired in {@link #configure}, after them. The core's pool, which needs only properties, is declared
 * in application.properties ({@code camel.beans.coreConnections}).
 */
public class RelayBeans implements CamelConfiguration {

    // metrics: each named after the step that records it in the routes
    @BindToRegistry
    private final RelayMetrics relayMetrics = new RelayMetrics();
    @BindToRegistry
    private final CoreCallStatus coreCalls = new CoreCallStatus();
    @BindToRegistry
    private final ReplyCounter replyCounter = new ReplyCounter(relayMetrics);
    /** Each route step that records a transition names it: {@code record(*, 'none', 'SENT')}. */
    @BindToRegistry
    private final LedgerTransition ledgerTransition = new LedgerTransition(relayMetrics);
    /** Each route step that records a core call names the call and its outcome: {@code record(*, 'transfer', 'answered')}. */
    @BindToRegistry
    private final CoreCallOutcome coreCallOutcome = new CoreCallOutcome(relayMetrics, coreCalls);
    @BindToRegistry
    private final CoreCallClock coreCallClock = new CoreCallClock();

    // the telegram and the core's JSON, mapped field by field; the routes decide what they mean
    @BindToRegistry
    private final TelegramValidator telegramValidator = new TelegramValidator();
    @BindToRegistry
    private final CoreTransferRequest coreTransferRequest = new CoreTransferRequest();
    @BindToRegistry
    private final CoreAnswerReader coreAnswerReader = new CoreAnswerReader();
    @BindToRegistry
    private final TelegramReply telegramReply = new TelegramReply();
    @BindToRegistry
    private final RecentGuids recentGuids = new RecentGuids();
    @BindToRegistry
    private final LedgerRowColumns ledgerRowColumns = new LedgerRowColumns();

    // the timed runs: the split's outcomes collected, then the run's summary line and metrics; stale SENT rows made
    // UNKNOWN batch after batch
    @BindToRegistry
    private final GroupedBodyAggregationStrategy outcomes = new GroupedBodyAggregationStrategy();
    @BindToRegistry
    private final JobRunSummary jobRunSummary = new JobRunSummary(relayMetrics);
    @BindToRegistry
    private final RowBatch staleSentBatch = new RowBatch(relayMetrics, "SENT", "UNKNOWN", "staleCount");

    // operations: GET /routes and a ledger row as the admin API shows them, account numbers masked in logs
    @BindToRegistry
    private final RouteReport routeReport = new RouteReport();
    @BindToRegistry
    private final LedgerRowView ledgerRowView = new LedgerRowView();
    @BindToRegistry("CamelCustomLogMask")
    private final AccountMaskingFormatter logMask = new AccountMaskingFormatter();

    @PropertyInject("relay.admin.enabled")
    private boolean admin;
    @PropertyInject("relay.admin.step-counts")
    private boolean stepCounts;
    @PropertyInject("relay.tracing.enabled")
    private boolean tracing;

    /**
     * What depends on the ledger's beans ({@link LedgerBeans}, wired before this): the purge's batches, the group sizes
     * and the ledger's health in /metrics, GET /health; then the interceptors (each step's counts for the route
     * pictures, the GUID in every log line's MDC) and the traces.
     */
    @Override
    public void configure(CamelContext context) {
        Registry beans = context.getRegistry();
        ReplicationCheck replication = beans.lookupByNameAndType("ledgerReplication", ReplicationCheck.class);
        LedgerWriter writer = beans.lookupByNameAndType("ledger-write", LedgerWriteComponent.class).writer();
        if (writer != null) {
            writer.reportGroupSizes(relayMetrics::ledgerGroup);
        }
        relayMetrics.settings(context);
        // a purge run's progress, made here and not in a @BindToRegistry method, which Camel Main calls twice: its gauges
        // are registered once, for the first. On SQLite a writer of another process waiting for the ledger is not seen,
        // so the purge also listens for one
        boolean postgresql = beans.lookupByNameAndType("ledgerDialect", LedgerDialect.class) == LedgerDialect.POSTGRESQL;
        beans.bind("purgeRun", new PurgeRun(relayMetrics, Double.parseDouble(context.resolvePropertyPlaceholders(
                postgresql ? "{{relay.jobs.postgresql.batch-share}}" : "{{relay.jobs.batch-share}}")),
                Integer.parseInt(context.resolvePropertyPlaceholders("{{relay.history.days}}")), !postgresql));
        LedgerCommitCheck ledgerCommit = beans.lookupByNameAndType("ledgerCommitCheck", LedgerCommitCheck.class);
        relayMetrics.flag("relay.ledger.writable", "1 while the last probe commit of the ledger completed within relay.db.connect-wait-ms",
                ledgerCommit::writable);
        relayMetrics.flag("relay.ledger.unsafe.replication", "1 while the last check of a PostgreSQL ledger found asynchronous standbys "
                + "and no synchronous one", () -> replication != null && replication.unsafe());
        beans.bind("healthReport", new HealthReport(coreCalls, replication));
        // the route pictures (GET /, /routes.svg, /routes/{id}.svg), with each step's counts when the relay keeps them
        StepCounter steps = admin && stepCounts ? new StepCounter() : null;
        if (steps != null) {
            context.getCamelContextExtension().addInterceptStrategy(steps);
        }
        beans.bind("routePage", new RoutePage(steps));
        // the GUID in every log line's MDC
        context.getCamelContextExtension().addInterceptStrategy(new GuidMdcInterceptStrategy());
        // traces of transfers and of the timed routes' runs (OpenTelemetry), when relay.tracing.enabled
        if (tracing) {
            RelayTracing.install(context, relayMetrics);
        }
    }
}
