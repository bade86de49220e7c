package dev.idempotentrelay;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotentrelay.jobs.ClusteredJobStore;
import dev.idempotentrelay.ledger.BoundedPoolWriter;
import dev.idempotentrelay.ledger.FailoverEviction;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerMigrations;
import dev.idempotentrelay.ledger.LedgerSqlComponent;
import dev.idempotentrelay.ledger.LedgerWriteComponent;
import dev.idempotentrelay.ledger.LedgerWriter;
import dev.idempotentrelay.ledger.PostgresGroupCommit;
import dev.idempotentrelay.ledger.PrimaryConnections;
import dev.idempotentrelay.ledger.RelayName;
import dev.idempotentrelay.ledger.ReplicationCheck;
import dev.idempotentrelay.ledger.ReusedStatements;
import dev.idempotentrelay.ledger.SqliteGroupCommit;
import dev.idempotentrelay.ops.LedgerCommitCheck;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertyInject;
import org.apache.camel.component.quartz.QuartzComponent;
import org.apache.camel.spi.Registry;
import org.slf4j.LoggerFactory;

/**
 * The ledger's beans: a HikariCP pool on SQLite or PostgreSQL (shared by any number of relays) behind the relay's
 * {@code sql:} component (reads) and {@code ledger-write:} component (writes) with the writer that commits concurrent
 * writes together, the database's own clock and SQL for the SQL files ({@link LedgerDialect}), the ledger's version,
 * the probe commit of GET /health, and the timed routes' timers on a clustered ledger. Each needs the one before it, so
 * they are made in order, in {@link #configure}, from the {@code relay.db.*} properties injected below. Listed before
 * {@link RelayBeans}, which finds them in the registry.
 */
public class LedgerBeans implements CamelConfiguration {

    @PropertyInject("relay.db")
    private String db;
    @PropertyInject("relay.db.user")
    private String user;
    @PropertyInject("relay.name")
    private String name;
    @PropertyInject("relay.port")
    private int port;
    @PropertyInject("relay.channel.enabled")
    private boolean channel;
    @PropertyInject("relay.db.connect-wait-ms")
    private long connectWaitMs;
    @PropertyInject("relay.jobs.commit-wait-ms")
    private long jobsCommitWaitMs;
    @PropertyInject("relay.db.pool-size")
    private int sqlitePoolSize;
    @PropertyInject("relay.db.sqlite-url")
    private String sqliteUrl;
    @PropertyInject("relay.db.group-commit")
    private boolean sqliteGroupCommit;
    @PropertyInject("relay.db.checkpoint-writes")
    private int checkpointWrites;
    @PropertyInject("relay.db.postgresql.pool-size")
    private int postgresqlPoolSize;
    @PropertyInject("relay.db.postgresql.group-commit")
    private boolean postgresqlGroupCommit;
    @PropertyInject("relay.db.postgresql.group-max")
    private int groupMax;
    @PropertyInject("relay.db.postgresql.group-wait-us")
    private long groupWaitUs;
    @PropertyInject("relay.db.postgresql.group-writers")
    private int groupWriters;
    @PropertyInject("relay.db.allow-async-replication")
    private boolean allowAsyncReplication;
    @PropertyInject("relay.migrate.lock-timeout-ms")
    private long migrateLockTimeoutMs;
    @PropertyInject("relay.migrate.attempts")
    private int migrateAttempts;
    @PropertyInject("relay.jobs.enabled")
    private boolean jobs;
    @PropertyInject("relay.jobs.clustered")
    private boolean clusteredJobs;
    @PropertyInject("relay.jobs.cluster-checkin-ms")
    private long clusterCheckinMs;

    @Override
    public void configure(CamelContext context) {
        Registry beans = context.getRegistry();
        LedgerDialect dialect = LedgerDialect.of(db);
        boolean postgresql = dialect == LedgerDialect.POSTGRESQL;
        dialect.sql().forEach(context.getPropertiesComponent()::addInitialProperty);
        // the name this relay writes with every change it makes (relay.name, or host:port), for the GUIDs' history
        String relayName = RelayName.of(name, port);
        context.getPropertiesComponent().addInitialProperty("relay.ledger.relay", RelayName.literal(relayName));
        // a claim waits at most connect-wait-ms for a connection and, on PostgreSQL, for its commit, then is E902; a
        // one-shot command (resolve, reprocess, purge from cron), which no channel waits for, waits as long as a batch
        // of the timed work waits for its commit: a busy or restarting ledger server delays it rather than failing it
        long ledgerWaitMs = channel ? connectWaitMs : jobsCommitWaitMs;
        HikariDataSource ledger = new HikariDataSource();
        ledger.setPoolName("ledger");
        ledger.setMaximumPoolSize(postgresql ? postgresqlPoolSize : sqlitePoolSize);
        // a ledger that does not answer: a claim waits at most this long for a connection, then is E902
        ledger.setConnectionTimeout(ledgerWaitMs);
        ledger.setInitializationFailTimeout(-1);
        LedgerWriter writer = null;
        if (postgresql) {
            // the password only from the environment (RelaySecrets): never a property, a flag or a log line. Connections
            // to the primary of a multi-host URL, tried again at once while a failover leaves no server to write to
            PrimaryConnections connections = new PrimaryConnections(db, user, RelaySecrets.of(context).dbPassword());
            connections.stopWhen(ledger::isClosed);
            ledger.setDataSource(connections);
            // a connection whose server is gone or read-only (demoted) takes the pool's other connections with it
            FailoverEviction eviction = new FailoverEviction();
            ledger.setExceptionOverride(eviction);
            eviction.setPool(ledger);
            // the claims and records of concurrent exchanges committed together, or each alone; either way a caller waits at
            // most connect-wait-ms for its commit (a commit that hangs is E902)
            writer = postgresqlGroupCommit
                    ? new PostgresGroupCommit(ledger, ledgerWaitMs, groupMax, groupWaitUs, groupWriters)
                    : new BoundedPoolWriter(ledger, ledgerWaitMs);
            // whether a commit waits for a synchronous standby: checked at start (Relay) and by the ledger watch
            beans.bind("ledgerReplication", new ReplicationCheck(ledger, LedgerDialect.describe(db), allowAsyncReplication));
        } else {
            // each connection keeps the statements it prepared (sqlite-jdbc compiles the SQL at every prepare)
            ledger.setDataSource(new ReusedStatements(sqliteUrl));
            // SQLite: the writes of concurrent exchanges committed together, one fsync for many (PostgreSQL does that itself)
            if (sqliteGroupCommit) {
                writer = new SqliteGroupCommit(ledger, 512, checkpointWrites);
            }
        }
        beans.bind("ledger", ledger);
        beans.bind("ledgerDialect", dialect);
        // the ledger's version, read beside the loading of the routes (Relay waits for it before any route starts): a
        // SQLite file that the relay serves channels from is migrated, any other ledger refused if this build cannot run
        // on it; on PostgreSQL only `migrate` changes the schema
        beans.bind("ledgerVersion", new LedgerMigrations(ledger, dialect, migrateLockTimeoutMs, migrateAttempts)
                .checkAtStart(!postgresql && channel, LoggerFactory.getLogger(Relay.class)::info));
        beans.bind("sql", new LedgerSqlComponent());
        beans.bind("ledger-write", new LedgerWriteComponent(writer));
        // GET /health's and the ledger watch's probe commit
        LedgerCommitCheck ledgerCommit = new LedgerCommitCheck(relayName, connectWaitMs);
        ledgerCommit.setCamelContext(context);
        beans.bind("ledgerCommitCheck", ledgerCommit);

        // the timers of the timed routes (quartz:relay-jobs/...): in memory in every relay (Quartz's RAMJobStore,
        // safe as every transition is a guarded statement), or with relay.jobs.clustered in Quartz's JDBC job store on
        // the PostgreSQL ledger and its pool, shared by the relays on it: each run on one relay at a time
        if (jobs && clusteredJobs) {
            if (!postgresql) {
                throw new IllegalArgumentException("relay.jobs.clustered needs a PostgreSQL ledger, not " + LedgerDialect.describe(db));
            }
            context.getComponent("quartz", QuartzComponent.class)
                    .setProperties(ClusteredJobStore.properties(ledger, ClusteredJobStore.instanceId(port), clusterCheckinMs));
        }
    }
}
