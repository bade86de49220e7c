package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.PropertyRule.address;
import static dev.idempotentrelay.cli.PropertyRule.anything;
import static dev.idempotentrelay.cli.PropertyRule.atLeast;
import static dev.idempotentrelay.cli.PropertyRule.bool;
import static dev.idempotentrelay.cli.PropertyRule.cidrs;
import static dev.idempotentrelay.cli.PropertyRule.httpUrl;
import static dev.idempotentrelay.cli.PropertyRule.ledger;
import static dev.idempotentrelay.cli.PropertyRule.port;
import static dev.idempotentrelay.cli.PropertyRule.relayName;
import static dev.idempotentrelay.cli.PropertyRule.share;

import java.util.Arrays;
import java.util.Optional;

/**
 * The relay.* properties of application.properties (where each has its default and a one-line comment) that the
 * command line checks before it starts the relay, whether a flag, a RELAY_* variable or a --config file set them:
 * the flag that sets each, if any, and the values it takes. Two of them could lose money when too small, and say why.
 */
enum RelayProperty {

    NAME("relay.name", null, relayName()),
    HOST("relay.host", null, address()),
    PORT("relay.port", "port", port()),
    DB("relay.db", "db", ledger()),
    DB_USER("relay.db.user", "db-user", anything()),
    DB_CONNECT_WAIT_MS("relay.db.connect-wait-ms", null, atLeast(1)),
    DB_CHECK_EVERY("relay.db.check-every", null, atLeast(1)),
    DB_ALLOW_ASYNC_REPLICATION("relay.db.allow-async-replication", null, bool()),
    GROUP_COMMIT("relay.db.group-commit", null, bool()),
    CHECKPOINT_WRITES("relay.db.checkpoint-writes", null, atLeast(1)),
    DB_POOL_SIZE("relay.db.pool-size", null, atLeast(2)),
    DB_POSTGRESQL_POOL_SIZE("relay.db.postgresql.pool-size", null, atLeast(1)),
    DB_POSTGRESQL_GROUP_COMMIT("relay.db.postgresql.group-commit", null, bool()),
    DB_POSTGRESQL_GROUP_MAX("relay.db.postgresql.group-max", null, atLeast(1)),
    DB_POSTGRESQL_GROUP_WAIT_US("relay.db.postgresql.group-wait-us", null, atLeast(0)),
    DB_POSTGRESQL_GROUP_WRITERS("relay.db.postgresql.group-writers", null, atLeast(1)),
    MIGRATE_LOCK_TIMEOUT_MS("relay.migrate.lock-timeout-ms", null, atLeast(1)),
    MIGRATE_ATTEMPTS("relay.migrate.attempts", null, atLeast(1)),
    CORE_URL("relay.core.url", "core", httpUrl()),
    CONNECT_TIMEOUT_MS("relay.core.connect-timeout-ms", "connect-timeout-ms", atLeast(1)),
    READ_TIMEOUT_MS("relay.core.read-timeout-ms", "read-timeout-ms", atLeast(1)),
    VALIDATE_AFTER_INACTIVITY_MS("relay.core.validate-after-inactivity-ms", null, atLeast(0)),
    CHANNEL_ENABLED("relay.channel.enabled", null, bool()),
    IDLE_TIMEOUT_MS("relay.channel.idle-timeout-ms", null, atLeast(1)),
    MAX_CONNECTIONS("relay.channel.max-connections", null, atLeast(1)),
    MAX_IN_FLIGHT("relay.max-in-flight", null, atLeast(1)),
    VIRTUAL_THREADS("relay.channel.virtual-threads", null, bool()),
    EPOLL("relay.channel.epoll", null, bool()),
    JOBS_ENABLED("relay.jobs.enabled", null, bool()),
    JOBS_CLUSTERED("relay.jobs.clustered", null, bool()),
    JOBS_CLUSTER_CHECKIN_MS("relay.jobs.cluster-checkin-ms", null, atLeast(1)),
    EVERY("relay.jobs.every", "every", atLeast(1)),
    PURGE_EVERY("relay.jobs.purge-every", "purge-every", atLeast(1)),
    JOBS_BATCH_SIZE("relay.jobs.batch-size", null, atLeast(1)),
    JOBS_BATCH_SHARE("relay.jobs.batch-share", null, share()),
    JOBS_POSTGRESQL_BATCH_SHARE("relay.jobs.postgresql.batch-share", null, share()),
    JOBS_COMMIT_WAIT_MS("relay.jobs.commit-wait-ms", null, atLeast(1)),
    MIN_AGE("relay.resolve.min-age", "min-age", atLeast(1),
            "a transfer that the core is still applying would be asked about, found missing, and sent again"),
    SENT_STALE_AFTER("relay.resolve.sent-stale-after", "sent-stale-after", atLeast(1),
            "a call still waiting for the core would be taken for one cut off by a crash, found missing, and sent again"),
    MAX_ATTEMPTS("relay.reprocess.max-attempts", "max-attempts", atLeast(1)),
    DAYS("relay.purge.days", "days", atLeast(1),
            "a transfer done moments ago would lose its row, and a channel's resend of it would be taken for a new one and sent again"),
    HISTORY_DAYS("relay.history.days", "history-days", atLeast(1)),
    CORE_SIM_ENABLED("relay.core-sim.enabled", null, bool()),
    CORE_SIM_SLOW_MS("relay.core-sim.slow-ms", null, atLeast(0)),
    ADMIN_ENABLED("relay.admin.enabled", null, bool()),
    ADMIN_HOST("relay.admin.host", "admin-host", address()),
    ADMIN_PORT("relay.admin.port", "admin-port", port()),
    ADMIN_STEP_COUNTS("relay.admin.step-counts", null, bool()),
    TRACING_ENABLED("relay.tracing.enabled", null, bool()),
    TRACING_SERVICE_NAME("relay.tracing.service-name", null, anything()),
    TRACING_ENDPOINT("relay.tracing.endpoint", null, httpUrl()),
    TRACING_SAMPLER_RATIO("relay.tracing.sampler-ratio", null, share()),
    TRACING_QUEUE_SIZE("relay.tracing.queue-size", null, atLeast(1)),
    TLS_KEYSTORE("relay.tls.keystore", "tls-keystore", anything()),
    TLS_TRUSTSTORE("relay.tls.truststore", "tls-truststore", anything()),
    CHANNEL_ALLOW("relay.channel.allow", "channel-allow", cidrs());

    /** The property's name in application.properties and --config files. */
    final String key;
    /** The flag that sets it (without its dashes), or null when only a property or a variable does. */
    final String flag;
    private final PropertyRule rule;
    /** Why a refused value could lose money, or null; TimingRules gives the same reason for its refusals. */
    final String reason;

    RelayProperty(String key, String flag, PropertyRule rule) {
        this(key, flag, rule, null);
    }

    RelayProperty(String key, String flag, PropertyRule rule, String reason) {
        this.key = key;
        this.flag = flag;
        this.rule = rule;
        this.reason = reason;
    }

    /** Null when {@code value} is allowed, else "must be ..., not 'value'" and why, when it could lose money. */
    String refusal(String value) {
        String problem = rule.problem(value);
        if (problem == null) {
            return null;
        }
        return problem + ", not '" + value + "'" + (reason == null ? "" : ": " + reason);
    }

    static Optional<RelayProperty> ofKey(String key) {
        return Arrays.stream(values()).filter(p -> p.key.equals(key)).findFirst();
    }

    static Optional<RelayProperty> ofFlag(String flag) {
        return Arrays.stream(values()).filter(p -> flag.equals(p.flag)).findFirst();
    }
}
