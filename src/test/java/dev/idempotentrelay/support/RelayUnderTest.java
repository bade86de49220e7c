package dev.idempotentrelay.support;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.RelaySecrets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The relay started in this JVM the way {@code run} starts it, loading the YAML routes from the
 * repository's {@code routes/} folder, on a SQLite file (or the ledger of {@link #onLedger}) and a free loopback port, with no timed jobs, and its
 * admin endpoint on another free port.
 */
public final class RelayUnderTest implements AutoCloseable {

    public final int port;
    public final int adminPort;
    public final Path db;
    public final LedgerFile ledger;
    private final Relay relay;

    private RelayUnderTest(Relay relay, int port, int adminPort, Path db) {
        this.relay = relay;
        this.port = port;
        this.adminPort = adminPort;
        this.db = db;
        this.ledger = db == null ? null : new LedgerFile(db);
    }

    public static Builder on(Path db, String coreUrl) {
        return new Builder(db, db.toString(), coreUrl);
    }

    /** A relay on a ledger given by its relay.db value, such as a PostgreSQL database's JDBC URL. */
    public static Builder onLedger(String db, String coreUrl) {
        return new Builder(null, db, coreUrl);
    }

    public Relay relay() {
        return relay;
    }

    /** HTTP to the admin endpoint on 127.0.0.1. */
    public AdminClient admin() {
        return new AdminClient("http://127.0.0.1:" + adminPort);
    }

    @Override
    public void close() {
        relay.close();
    }

    public static final class Builder {
        private final Path db;
        private final Map<String, String> properties = new HashMap<>();
        private Map<String, String> environment = Map.of();

        private Builder(Path db, String ledger, String coreUrl) {
            this.db = db;
            properties.put("relay.db", ledger);
            properties.put("relay.core.url", coreUrl);
            properties.put("relay.host", "127.0.0.1");
            properties.put("relay.jobs.enabled", "false");
            properties.put("camel.main.routes-include-pattern",
                    "file:" + Path.of("routes").toAbsolutePath() + "/*.camel.yaml");
        }

        public Builder readTimeoutMs(long ms) {
            return with("relay.core.read-timeout-ms", Long.toString(ms));
        }

        public Builder with(String property, String value) {
            properties.put(property, value);
            return this;
        }

        /** The environment the relay reads its secrets from (passwords, admin token); none by default. */
        public Builder environment(Map<String, String> environment) {
            this.environment = environment;
            return this;
        }

        /** Mutual TLS with the test certificates: the relay's own, and the channels' CA. */
        public Builder mutualTls() {
            TestCertificates certificates = TestCertificates.get();
            environment = TestCertificates.passwords();
            return with("relay.tls.keystore", certificates.relay.toString()).with("relay.tls.truststore", certificates.trust.toString());
        }

        public RelayUnderTest start() throws Exception {
            int port = Ports.free();
            properties.put("relay.port", Integer.toString(port));
            int adminPort = Integer.parseInt(properties.computeIfAbsent("relay.admin.port", p -> Integer.toString(Ports.free())));
            return new RelayUnderTest(Relay.start(properties, RelaySecrets.from(environment)), port, adminPort, db);
        }
    }
}
