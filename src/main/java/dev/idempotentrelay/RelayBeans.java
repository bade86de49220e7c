package dev.idempotentrelay;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotentrelay.core.CoreConnectionManager;
import dev.idempotentrelay.jobs.ClusteredJobStore;
import dev.idempotentrelay.jobs.JobRunSummary;
import dev.idempotentrelay.jobs.PurgeRun;
import dev.idempotentrelay.jobs.RowBatch;
import dev.idempotentrelay.ledger.BoundedPoolWriter;
import dev.idempotentrelay.ledger.FailoverEviction;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerMigrations;
import dev.idempotentrelay.ledger.LedgerRowColumns;
import dev.idempotentrelay.ledger.LedgerRowView;
import dev.idempotentrelay.ledger.LedgerSqlComponent;
import dev.idempotentrelay.ledger.LedgerWriteComponent;
import dev.idempotentrelay.ledger.LedgerWriter;
import dev.idempotentrelay.ledger.PostgresGroupCommit;
import dev.idempotentrelay.ledger.PrimaryConnections;
import dev.idempotentrelay.ledger.RecentGuids;
import dev.idempotentrelay.ledger.RelayName;
import dev.idempotentrelay.ledger.ReplicationCheck;
import dev.idempotentrelay.ledger.ReusedStatements;
import dev.idempotentrelay.ledger.SqliteGroupCommit;
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
import dev.idempotentrelay.wire.ChannelAllowList;
import dev.idempotentrelay.wire.ChannelOfConnection;
import dev.idempotentrelay.wire.ChannelThreads;
import dev.idempotentrelay.wire.ChannelTlsParameters;
import dev.idempotentrelay.wire.ChannelTransport;
import dev.idempotentrelay.wire.ConnectionGate;
import dev.idempotentrelay.wire.FrameDecoderFactory;
import dev.idempotentrelay.wire.FrameEncoder;
import dev.idempotentrelay.wire.IdleConnectionCloserFactory;
import dev.idempotentrelay.wire.TlsFailureLogger;
import dev.idempotentrelay.tracing.RelayTracing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.component.netty.NettyComponent;
import org.apache.camel.component.quartz.QuartzComponent;
import org.apache.camel.model.Model;
import org.apache.camel.processor.aggregate.GroupedBodyAggregationStrategy;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.jsse.SSLContextParameters;
import org.slf4j.LoggerFactory;

/**
 * Every bean of the relay, wired in one place (the camel-examples main-yaml way: one {@link CamelConfiguration},
 * named by {@code camel.main.configuration-classes}). Each is bound under the name the routes and
 * application.properties use; what varies comes from the {@code relay.*} properties. Camel Main runs this before
 * it builds the routes and before it applies the {@code camel.component.*} options that refer to these beans
 * ({@code #ledger}, {@code #coreConnections}).
 */
public class RelayBeans implements CamelConfiguration {

    @Override
    public void configure(CamelContext context) {
        Registry beans = context.getRegistry();

        // the channel listener's pipeline (routes/channel-path.camel.yaml: decoders and encoders of channel-listener)
        boolean channel = Boolean.parseBoolean(text(context, "relay.channel.enabled"));
        beans.bind("channelAllowList", ChannelAllowList.of(text(context, "relay.channel.allow")));
        beans.bind("tlsFailureLogger", new TlsFailureLogger());
        ConnectionGate gate = new ConnectionGate();
        gate.setMaxConnections(integer(context, "relay.channel.max-connections"));
        beans.bind("connectionGate", gate);
        IdleConnectionCloserFactory idle = new IdleConnectionCloserFactory();
        idle.setIdleTimeoutMs(number(context, "relay.channel.idle-timeout-ms"));
        beans.bind("idleConnectionCloser", idle);
        beans.bind("frameDecoder", new FrameDecoderFactory());
        beans.bind("frameEncoder", new FrameEncoder());
        // its threads: a virtual thread per connection behind an event loop per core, or an OS thread per connection;
        // its sockets on netty's epoll transport where the machine has it
        if (channel) {
            NettyComponent netty = context.getComponent("netty", NettyComponent.class);
            ChannelThreads.configure(netty, Boolean.parseBoolean(text(context, "relay.channel.virtual-threads")),
                    integer(context, "relay.max-in-flight"));
            ChannelTransport.configure(netty, Boolean.parseBoolean(text(context, "relay.channel.epoll")));
        }

        // channel security (SPEC section 8): the SSL handler's parameters (ssl, sslContextParameters and needClientAuth
        // of channel-listener), their PKCS12 files opened now with the passwords from the environment; empty, and never
        // read, when relay.tls.keystore is (plain TCP). With mutual TLS, the CN of each connection's certificate.
        beans.bind("channelTls", channel
                ? ChannelTlsParameters.of(text(context, "relay.tls.keystore"), text(context, "relay.tls.truststore"), secrets(context))
                : new SSLContextParameters());
        beans.bind("channelOfConnection", new ChannelOfConnection());

        // the telegram and the core's JSON, mapped field by field; the routes decide what they mean
        beans.bind("telegramValidator", new TelegramValidator());
        beans.bind("coreTransferRequest", new CoreTransferRequest());
        beans.bind("coreAnswerReader", new CoreAnswerReader());
        beans.bind("telegramReply", new TelegramReply());
        beans.bind("recentGuids", new RecentGuids());
        beans.bind("ledgerRowColumns", new LedgerRowColumns());

        // the ledger: a HikariCP pool on SQLite or PostgreSQL (shared by any number of relays), behind the relay's sql:
        // component (reads) and ledger-write: component (writes); the database's own clock and SQL for the SQL files
        LedgerDialect dialect = LedgerDialect.of(text(context, "relay.db"));
        dialect.sql().forEach(context.getPropertiesComponent()::addInitialProperty);
        // the name this relay writes with every change it makes (relay.name, or host:port), for the GUIDs' history
        String relayName = RelayName.of(text(context, "relay.name"), integer(context, "relay.port"));
        context.getPropertiesComponent().addInitialProperty("relay.ledger.relay", RelayName.literal(relayName));
        long connectWaitMs = number(context, "relay.db.connect-wait-ms");
        // a claim waits at most connect-wait-ms for a connection and, on PostgreSQL, for its commit, then is E902; a
        // one-shot command (resolve, reprocess, purge from cron), which no channel waits for, waits as long as a batch
        // of the timed work waits for its commit: a busy or restarting ledger server delays it rather than failing it
        long ledgerWaitMs = channel ? connectWaitMs : number(context, "relay.jobs.commit-wait-ms");
        HikariDataSource ledger = new HikariDataSource();
        ledger.setPoolName("ledger");
        ledger.setMaximumPoolSize(integer(context, dialect == LedgerDialect.POSTGRESQL ? "relay.db.postgresql.pool-size" : "relay.db.pool-size"));
        // a ledger that does not answer: a claim waits at most this long for a connection, then is E902
        ledger.setConnectionTimeout(ledgerWaitMs);
        ledger.setInitializationFailTimeout(-1);
        LedgerWriter writer = null;
        ReplicationCheck replication = null;
        if (dialect == LedgerDialect.POSTGRESQL) {
            // the password only from the environment (RelaySecrets): never a property, a flag or a log line. Connections
            // to the primary of a multi-host URL, tried again at once while a failover leaves no server to write to
            PrimaryConnections connections = new PrimaryConnections(text(context, "relay.db"), text(context, "relay.db.user"),
                    secrets(context).dbPassword());
            connections.stopWhen(ledger::isClosed);
            ledger.setDataSource(connections);
            // a connection whose server is gone or read-only (demoted) takes the pool's other connections with it
            FailoverEviction eviction = new FailoverEviction();
            ledger.setExceptionOverride(eviction);
            eviction.setPool(ledger);
            // the claims and records of concurrent exchanges committed together, or each alone; either way a caller waits at
            // most connect-wait-ms for its commit (a commit that hangs is E902)
            writer = Boolean.parseBoolean(text(context, "relay.db.postgresql.group-commit"))
                    ? new PostgresGroupCommit(ledger, ledgerWaitMs, integer(context, "relay.db.postgresql.group-max"),
                            number(context, "relay.db.postgresql.group-wait-us"), integer(context, "relay.db.postgresql.group-writers"))
                    : new BoundedPoolWriter(ledger, ledgerWaitMs);
            // whether a commit waits for a synchronous standby: checked at start (Relay) and by the ledger watch
            replication = new ReplicationCheck(ledger, LedgerDialect.describe(text(context, "relay.db")),
                    Boolean.parseBoolean(text(context, "relay.db.allow-async-replication")));
            beans.bind("ledgerReplication", replication);
        } else {
            // each connection keeps the statements it prepared (sqlite-jdbc compiles the SQL at every prepare)
            ledger.setDataSource(new ReusedStatements(text(context, "relay.db.sqlite-url")));
            // SQLite: the writes of concurrent exchanges committed together, one fsync for many (PostgreSQL does that itself)
            if (Boolean.parseBoolean(text(context, "relay.db.group-commit"))) {
                writer = new SqliteGroupCommit(ledger, 512, integer(context, "relay.db.checkpoint-writes"));
            }
        }
        beans.bind("ledger", ledger);
        beans.bind("ledgerDialect", dialect);
        // the ledger's version, read beside the loading of the routes (Relay waits for it before any route starts): a
        // SQLite file that the relay serves channels from is migrated, any other ledger refused if this build cannot run
        // on it; on PostgreSQL only `migrate` changes the schema
        beans.bind("ledgerVersion", new LedgerMigrations(ledger, dialect, number(context, "relay.migrate.lock-timeout-ms"),
                integer(context, "relay.migrate.attempts")).checkAtStart(dialect == LedgerDialect.SQLITE && channel,
                        LoggerFactory.getLogger(Relay.class)::info));
        beans.bind("sql", new LedgerSqlComponent(dialect));
        beans.bind("ledger-write", new LedgerWriteComponent(dialect, writer));

        // the timers of the timed routes (quartz:relay-jobs/...): in memory in every relay (Quartz's RAMJobStore,
        // safe as every transition is a guarded statement), or with relay.jobs.clustered in Quartz's JDBC job store on
        // the PostgreSQL ledger and its pool, shared by the relays on it: each run on one relay at a time
        if (clusteredJobs(context)) {
            if (dialect != LedgerDialect.POSTGRESQL) {
                throw new IllegalArgumentException("relay.jobs.clustered needs a PostgreSQL ledger, not "
                        + LedgerDialect.describe(text(context, "relay.db")));
            }
            context.getComponent("quartz", QuartzComponent.class).setProperties(ClusteredJobStore.properties(ledger,
                    ClusteredJobStore.instanceId(integer(context, "relay.port")), number(context, "relay.jobs.cluster-checkin-ms")));
        }

        // the core: pooled connections, each checked before reuse so that a core gone down is E902, not E901
        CoreConnectionManager core = new CoreConnectionManager();
        core.setConnectTimeoutMs(number(context, "relay.core.connect-timeout-ms"));
        core.setReadTimeoutMs(number(context, "relay.core.read-timeout-ms"));
        core.setValidateAfterInactivityMs(number(context, "relay.core.validate-after-inactivity-ms"));
        core.setMaxConnections(integer(context, "relay.max-in-flight"));
        beans.bind("coreConnections", core);

        // metrics: each named after the step that records it in the routes
        RelayMetrics metrics = new RelayMetrics();
        if (writer != null) {
            writer.reportGroupSizes(metrics::ledgerGroup);
        }
        CoreCallStatus coreCalls = new CoreCallStatus();
        beans.bind("relayMetrics", metrics);
        beans.bind("coreCalls", coreCalls);
        beans.bind("replyCounter", new ReplyCounter(metrics));
        beans.bind("noneToSent", new LedgerTransition(metrics, "none", "SENT"));
        beans.bind("failedToSent", new LedgerTransition(metrics, "FAILED", "SENT"));
        beans.bind("sentToDone", new LedgerTransition(metrics, "SENT", "DONE"));
        beans.bind("sentToUnknown", new LedgerTransition(metrics, "SENT", "UNKNOWN"));
        beans.bind("sentToFailed", new LedgerTransition(metrics, "SENT", "FAILED"));
        beans.bind("unknownToDone", new LedgerTransition(metrics, "UNKNOWN", "DONE"));
        beans.bind("unknownToFailed", new LedgerTransition(metrics, "UNKNOWN", "FAILED"));
        beans.bind("transferAnswered", new CoreCallOutcome(metrics, coreCalls, "transfer", "answered"));
        beans.bind("transferNotReached", new CoreCallOutcome(metrics, coreCalls, "transfer", "not-reached"));
        beans.bind("transferNoAnswer", new CoreCallOutcome(metrics, coreCalls, "transfer", "no-answer"));
        beans.bind("inquiryAnswered", new CoreCallOutcome(metrics, coreCalls, "inquiry", "answered"));
        beans.bind("inquiryNotReached", new CoreCallOutcome(metrics, coreCalls, "inquiry", "not-reached"));
        beans.bind("inquiryNoAnswer", new CoreCallOutcome(metrics, coreCalls, "inquiry", "no-answer"));
        beans.bind("coreCallClock", new CoreCallClock());

        // the timed runs: the split's outcomes collected, then the run's summary line and metrics
        beans.bind("outcomes", new GroupedBodyAggregationStrategy());
        beans.bind("resolveSummary", new JobRunSummary(metrics, "resolve"));
        beans.bind("reprocessSummary", new JobRunSummary(metrics, "reprocess"));
        // the timed work's batches: a purge run's progress, stale SENT rows made UNKNOWN batch after batch; on SQLite
        // a writer of another process waiting for the ledger is not seen, so the purge also listens for one
        boolean postgresql = dialect == LedgerDialect.POSTGRESQL;
        beans.bind("purgeRun", new PurgeRun(metrics, Double.parseDouble(text(context,
                postgresql ? "relay.jobs.postgresql.batch-share" : "relay.jobs.batch-share")),
                integer(context, "relay.history.days"), !postgresql));
        beans.bind("staleSentBatch", new RowBatch(metrics, "SENT", "UNKNOWN", "staleCount"));
        // the timing settings, for alert rules that compare ages with them
        metrics.setting("min-age", number(context, "relay.resolve.min-age"));
        metrics.setting("sent-stale-after", number(context, "relay.resolve.sent-stale-after"));
        metrics.setting("every", number(context, "relay.jobs.every"));
        metrics.setting("purge-every", number(context, "relay.jobs.purge-every"));
        metrics.setting("days", number(context, "relay.purge.days"));
        metrics.setting("max-attempts", number(context, "relay.reprocess.max-attempts"));
        metrics.setting("read-timeout", number(context, "relay.core.read-timeout-ms") / 1000.0);

        // operations: GET /health (and the ledger watch's probe commit), GET /routes, the route pictures, the GUID in every
        // log line's MDC, account numbers masked in logs
        LedgerCommitCheck ledgerCommit = new LedgerCommitCheck(relayName, connectWaitMs);
        ledgerCommit.setCamelContext(context);
        beans.bind("ledgerCommitCheck", ledgerCommit);
        metrics.flag("relay.ledger.writable", "1 while the last probe commit of the ledger completed within relay.db.connect-wait-ms",
                ledgerCommit::writable);
        ReplicationCheck replicationSeen = replication;
        metrics.flag("relay.ledger.unsafe.replication", "1 while the last check of a PostgreSQL ledger found asynchronous standbys "
                + "and no synchronous one", () -> replicationSeen != null && replicationSeen.unsafe());
        HealthReport health = new HealthReport();
        health.setCoreCalls(coreCalls);
        health.setReplication(replication);
        beans.bind("healthReport", health);
        beans.bind("routeReport", new RouteReport());
        // the route pictures (GET /, /routes.svg, /routes/{id}.svg), with each step's counts when the relay keeps them
        StepCounter steps = null;
        if (Boolean.parseBoolean(text(context, "relay.admin.enabled")) && Boolean.parseBoolean(text(context, "relay.admin.step-counts"))) {
            steps = new StepCounter();
            context.getCamelContextExtension().addInterceptStrategy(steps);
        }
        beans.bind("routePage", new RoutePage(steps));
        beans.bind("ledgerRowView", new LedgerRowView());
        GuidMdcInterceptStrategy guidMdc = new GuidMdcInterceptStrategy();
        beans.bind("guidMdc", guidMdc);
        context.getCamelContextExtension().addInterceptStrategy(guidMdc);
        beans.bind("CamelCustomLogMask", new AccountMaskingFormatter());
        // traces of transfers and of the timed routes' runs (OpenTelemetry), when relay.tracing.enabled
        if (Boolean.parseBoolean(text(context, "relay.tracing.enabled"))) {
            Map<String, String> tracing = new HashMap<>();
            for (String key : List.of("service-name", "endpoint", "sampler-ratio", "queue-size")) {
                tracing.put(key, text(context, "relay.tracing." + key));
            }
            RelayTracing.install(context, tracing, dialect == LedgerDialect.POSTGRESQL ? "postgresql" : "sqlite", metrics);
        }

        // Routes held back. A route's autoStartup is a literal boolean in Camel's YAML DSL schema, so the
        // relay.*.enabled switches are applied here, as Camel's route filter by endpoint: the listener, the timers of
        // the timed routes or the REST verbs are then not loaded at all (the direct: routes they call stay, for the
        // one-shot commands). Loaded but stopped would not do: a stopped route makes GET /health DOWN, and a
        // platform-http route cannot even be created without the admin endpoint's server.
        List<String> notLoaded = new ArrayList<>();
        if (!channel) {
            // a one-shot command: no listener, no ledger watch (it checks its ledger once, at start)
            notLoaded.add("netty:*");
            notLoaded.add("timer:ledger-commit-watch*");
        }
        if (!channel || replication == null) {
            notLoaded.add("timer:ledger-replication-watch*");
        }
        if (!Boolean.parseBoolean(text(context, "relay.jobs.enabled"))) {
            notLoaded.add("quartz:*");
        }
        if (!Boolean.parseBoolean(text(context, "relay.admin.enabled"))) {
            notLoaded.add("rest:*");
        }
        if (!notLoaded.isEmpty()) {
            context.getCamelContextExtension().getContextPlugin(Model.class).setRouteFilterPattern(null, String.join(",", notLoaded));
        }
    }

    /** Whether the timed routes run, on Quartz's clustered JDBC job store (relay.jobs.clustered). */
    static boolean clusteredJobs(CamelContext context) {
        return Boolean.parseBoolean(text(context, "relay.jobs.enabled")) && Boolean.parseBoolean(text(context, "relay.jobs.clustered"));
    }

    /** The secrets the relay was started with (bound by {@code Relay}), else this process's environment. */
    static RelaySecrets secrets(CamelContext context) {
        RelaySecrets secrets = context.getRegistry().lookupByNameAndType(RelaySecrets.BEAN, RelaySecrets.class);
        return secrets != null ? secrets : RelaySecrets.from(System.getenv());
    }

    private static String text(CamelContext context, String key) {
        return context.resolvePropertyPlaceholders("{{" + key + "}}");
    }

    private static long number(CamelContext context, String key) {
        return Long.parseLong(text(context, key));
    }

    private static int integer(CamelContext context, String key) {
        return Integer.parseInt(text(context, key));
    }
}
