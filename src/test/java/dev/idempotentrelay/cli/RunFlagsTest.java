package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Refusal.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RoutesCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flags of {@code run}, each mapped to its property; --routes loads an edited folder without a rebuild. */
class RunFlagsTest {

    @TempDir
    Path dir;

    @Test
    void everyFlagOfRunSetsItsProperty() throws Exception {
        Map<String, String> p = RunCommand.properties(new String[] {"run", "--db", "x.db", "--port", "9999",
                "--core", "http://core:8080", "--connect-timeout-ms", "200", "--read-timeout-ms", "3000", "--no-jobs",
                "--every", "5", "--purge-every", "600", "--min-age", "90", "--sent-stale-after", "300",
                "--max-attempts", "7", "--days", "30", "--core-sim", "--admin-port", "9999", "--admin-host", "0.0.0.0",
                "--dump-routes", "--tls-keystore", "relay.p12", "--tls-truststore", "channels-ca.p12",
                "--channel-allow", "10.1.0.0/16,192.168.7.12/32"});
        assertEquals(Map.ofEntries(
                Map.entry("relay.db", "x.db"), Map.entry("relay.port", "9999"), Map.entry("relay.core.url", "http://core:8080"),
                Map.entry("relay.core.connect-timeout-ms", "200"), Map.entry("relay.core.read-timeout-ms", "3000"),
                Map.entry("relay.jobs.enabled", "false"), Map.entry("relay.jobs.every", "5"),
                Map.entry("relay.jobs.purge-every", "600"), Map.entry("relay.resolve.min-age", "90"),
                Map.entry("relay.resolve.sent-stale-after", "300"), Map.entry("relay.reprocess.max-attempts", "7"),
                Map.entry("relay.purge.days", "30"), Map.entry("relay.core-sim.enabled", "true"),
                Map.entry("relay.admin.port", "9999"), Map.entry("relay.admin.host", "0.0.0.0"),
                Map.entry("camel.main.dump-routes", "yaml"), Map.entry("relay.tls.keystore", "relay.p12"),
                Map.entry("relay.tls.truststore", "channels-ca.p12"), Map.entry("relay.channel.allow", "10.1.0.0/16,192.168.7.12/32")), p);
    }

    @Test
    void jobsClusteredTakesAPostgresqlLedgerAndIsRefusedOnSqliteWhereverItComesFrom() throws Exception {
        assertEquals("true", RunCommand.properties(new String[] {"run", "--jobs-clustered", "--db", "jdbc:postgresql://db:5432/relay"})
                .get("relay.jobs.clustered"));
        assertRefused("idempotent-relay: run: --jobs-clustered needs a PostgreSQL ledger (jdbc:postgresql://HOST[:PORT]/DB), not the "
                + "SQLite file relay.db (relay.db): only relays on one PostgreSQL ledger share their timers", OneShot.run("run", "--jobs-clustered"));
        Path file = dir.resolve("one.db");
        assertRefused("idempotent-relay: run: RELAY_JOBS_CLUSTERED needs a PostgreSQL ledger (jdbc:postgresql://HOST[:PORT]/DB), not the "
                + "SQLite file " + file + " (--db): only relays on one PostgreSQL ledger share their timers",
                OneShot.withEnvironment(Map.of("RELAY_JOBS_CLUSTERED", "true"), "run", "--db", file.toString()));
        assertRefused("idempotent-relay: run: RELAY_JOBS_CLUSTER_CHECKIN_MS must be a whole number of at least 1, not '0'",
                OneShot.withEnvironment(Map.of("RELAY_JOBS_CLUSTER_CHECKIN_MS", "0"), "run"));
    }

    @Test
    void allowAsyncReplicationIsASwitchOfRunAndAPropertyOfTrueOrFalse() throws Exception {
        assertEquals("false", RunCommand.properties(new String[] {"run"}).getOrDefault("relay.db.allow-async-replication", "false"));
        assertEquals("true", RunCommand.properties(new String[] {"run", "--allow-async-replication", "--db", "jdbc:postgresql://db:5432/relay"})
                .get("relay.db.allow-async-replication"));
        assertRefused("idempotent-relay: run: RELAY_DB_ALLOW_ASYNC_REPLICATION must be true or false, not 'yes'",
                OneShot.withEnvironment(Map.of("RELAY_DB_ALLOW_ASYNC_REPLICATION", "yes"), "run"));
        assertRefused("idempotent-relay: run: RELAY_DB_CHECK_EVERY must be a whole number of at least 1, not '0'",
                OneShot.withEnvironment(Map.of("RELAY_DB_CHECK_EVERY", "0"), "run"));
    }

    @Test
    void theChannelAllowListTakesIpv4AndIpv6CidrsAndBareAddresses() throws Exception {
        String cidrs = "fd00::/8, 127.0.0.1 ,10.0.0.0/8,::1";
        assertEquals(cidrs, RunCommand.properties(new String[] {"run", "--channel-allow", cidrs}).get("relay.channel.allow"));
        assertEquals(" ", RunCommand.properties(new String[] {"run", "--channel-allow", " "}).get("relay.channel.allow"));
    }

    @Test
    void badValuesAreRefusedWithTheFlagNamed() {
        assertEquals("run: --core must be a URL such as http://localhost:9201, not 'localhost:9201'",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--core", "localhost:9201"})).getMessage());
        assertEquals("run: --admin-port must be at most 65535, not '70000'",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--admin-port", "70000"})).getMessage());
        assertEquals("run: --admin-host must be an address, such as 127.0.0.1 or 0.0.0.0, not ' '",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--admin-host", " "})).getMessage());
        assertEquals("run: --every must be a whole number of at least 1, not '0'",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--every", "0"})).getMessage());
        assertEquals("run: '10.0.0.0/33' in --channel-allow (relay.channel.allow) is not a CIDR such as 10.1.0.0/16 or 192.168.7.12/32",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--channel-allow", "10.0.0.1/32,10.0.0.0/33"})).getMessage());
        assertEquals("run: 'localhost' in --channel-allow (relay.channel.allow) is not a CIDR such as 10.1.0.0/16 or 192.168.7.12/32",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--channel-allow", "localhost"})).getMessage());
        assertEquals("run: '' in --channel-allow (relay.channel.allow) is not a CIDR such as 10.1.0.0/16 or 192.168.7.12/32",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--channel-allow", "10.0.0.0/8,"})).getMessage());
        assertEquals("run: --tls-keystore needs a PKCS12 file",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--tls-keystore", ""})).getMessage());
        assertEquals("run: --routes " + dir + " holds no *.camel.yaml route",
                assertThrows(UsageException.class, () -> RunCommand.properties(new String[] {"run", "--routes", dir.toString()})).getMessage());
    }

    @Test
    void routesFolderIsLoadedInsteadOfTheJarsCopy() throws Exception {
        Path routes = RoutesCopy.in(dir);
        Files.writeString(routes.resolve("extra-route.camel.yaml"), String.join("\n",
                "- route:",
                "    id: extra-route",
                "    description: an architect's addition, loaded without a rebuild",
                "    from:",
                "      uri: direct:extra-route",
                "      steps:",
                "        - setBody:",
                "            expression:",
                "              constant:",
                "                expression: edited",
                ""));
        Map<String, String> properties = new HashMap<>(RunCommand.properties(new String[] {"run", "--routes", routes.toString(),
                "--db", dir.resolve("ledger.db").toString(), "--no-jobs", "--core", "http://localhost:" + Ports.free()}));
        properties.put("relay.port", Integer.toString(Ports.free()));
        properties.put("relay.admin.port", Integer.toString(Ports.free()));
        try (Relay relay = Relay.start(properties)) {
            assertNotNull(relay.context().getRoute("extra-route"));
            assertEquals("edited", relay.context().createProducerTemplate().requestBody("direct:extra-route", null, String.class));
        }
    }
}
