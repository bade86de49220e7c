package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Refusal.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.OneShot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run's properties: application.properties, then --config FILE, then RELAY_* variables, then the flags. */
class SettingsTest {

    @TempDir
    Path dir;

    @Test
    void aFlagBeatsAVariableWhichBeatsTheConfigFileWhichBeatsTheBuiltInValue() throws Exception {
        Path config = Files.writeString(dir.resolve("relay.properties"), String.join("\n",
                "relay.port = 1111", "relay.admin.port = 1112", "relay.core.url = http://core-from-file:9201",
                "relay.jobs.every = 30", ""));
        Map<String, String> env = Map.of("RELAY_PORT", "2222", "RELAY_ADMIN_PORT", "2223", "RELAY_JOBS_PURGE_EVERY", "60",
                "RELAY_CORE_READ_TIMEOUT_MS", "7000", "RELAY_DB_PASSWORD", "not a property");
        Settings settings = RunCommand.settings(new String[] {"run", "--config", config.toString(), "--port", "3333"}, env);

        assertEquals("3333", settings.get(RelayProperty.PORT));
        assertEquals("--port", settings.origin(RelayProperty.PORT));
        assertEquals("2223", settings.get(RelayProperty.ADMIN_PORT));
        assertEquals("RELAY_ADMIN_PORT", settings.origin(RelayProperty.ADMIN_PORT));
        assertEquals("http://core-from-file:9201", settings.get(RelayProperty.CORE_URL));
        assertEquals("relay.core.url in " + config, settings.origin(RelayProperty.CORE_URL));
        assertEquals("30", settings.get(RelayProperty.EVERY));
        assertEquals("60", settings.get(RelayProperty.PURGE_EVERY));
        assertEquals("7000", settings.get(RelayProperty.READ_TIMEOUT_MS));
        assertEquals("relay.db", settings.get(RelayProperty.DB));
        assertEquals("relay.db", settings.origin(RelayProperty.DB));
        assertFalse(settings.given(RelayProperty.DB));
        // the relay is started with every value that is not the built-in one, and nothing else
        assertEquals(Map.of("relay.port", "3333", "relay.admin.port", "2223", "relay.core.url", "http://core-from-file:9201",
                "relay.jobs.every", "30", "relay.jobs.purge-every", "60", "relay.core.read-timeout-ms", "7000"), settings.overrides());
    }

    @Test
    void aConfigFileMayCarryCamelPropertiesAndTrailingBlanksButNoUnknownRelayProperty() throws Exception {
        Path config = Files.writeString(dir.resolve("relay.properties"),
                "camel.component.netty.worker-count = 8\nrelay.port = 9300   \n");
        Settings settings = RunCommand.settings(new String[] {"run", "--config", config.toString()}, Map.of());
        assertEquals("8", settings.overrides().get("camel.component.netty.worker-count"));
        assertEquals("9300", settings.get(RelayProperty.PORT));

        Path typo = Files.writeString(dir.resolve("typo.properties"), "relay.prot = 9300\n");
        assertRefused("idempotent-relay: run: --config " + typo + ": unknown property relay.prot (the relay's properties are "
                + "those of its built-in application.properties)", OneShot.run("run", "--config", typo.toString()));
    }

    @Test
    void aMissingOrUnreadableConfigFileIsOneLineNamingItAndExit2() throws Exception {
        Path missing = dir.resolve("missing.properties");
        for (String[] command : new String[][] {{"run"}, {"resolve"}, {"reprocess"}, {"purge"}, {"ledger", "stats"}}) {
            String name = String.join(" ", command);
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(command), java.util.stream.Stream.of("--config", missing.toString()))
                    .toArray(String[]::new);
            assertRefused("idempotent-relay: " + name + ": --config " + missing + ": no such file", OneShot.run(args));
        }
        assertRefused("idempotent-relay: run: --config " + dir + " is a folder, not a properties file",
                OneShot.run("run", "--config", dir.toString()));
        Path malformed = Files.writeString(dir.resolve("bad.properties"), "relay.port = \\u12\n");
        assertRefused("idempotent-relay: run: --config " + malformed + " is not a properties file: Malformed \\uxxxx encoding.",
                OneShot.run("run", "--config", malformed.toString()));
    }

    @Test
    void aBadValueIsRefusedNamingTheFlagTheVariableOrTheKeyAndItsFile() throws Exception {
        Path config = Files.writeString(dir.resolve("relay.properties"), "relay.max-in-flight = many\n");
        assertRefused("idempotent-relay: run: relay.max-in-flight in " + config + " must be a whole number of at least 1, not 'many'",
                OneShot.run("run", "--config", config.toString()));
        assertRefused("idempotent-relay: run: RELAY_JOBS_ENABLED must be true or false, not 'yes'",
                OneShot.withEnvironment(Map.of("RELAY_JOBS_ENABLED", "yes"), "run"));
        assertRefused("idempotent-relay: run: RELAY_PORT must be at most 65535, not '70000'",
                OneShot.withEnvironment(Map.of("RELAY_PORT", "70000"), "run"));
        assertRefused("idempotent-relay: run: --port must be a whole number of at least 1, not '+9100'", OneShot.run("run", "--port", "+9100"));
        assertRefused("idempotent-relay: purge: RELAY_JOBS_BATCH_SHARE must be a number above 0 and at most 1, such as 0.3, not '0'",
                OneShot.withEnvironment(Map.of("RELAY_JOBS_BATCH_SHARE", "0"), "purge", "--db", "x.db", "--days", "7"));
        assertRefused("idempotent-relay: run: relay.jobs.batch-share in " + config + " must be a number above 0 and at most 1, such as 0.3, not '1.5'",
                OneShot.run("run", "--config", Files.writeString(config, "relay.jobs.batch-share = 1.5\n").toString()));
    }

    @Test
    void theOneShotCommandsTakeTheirRequiredSettingsFromAFlagAVariableOrTheConfigFile() throws Exception {
        Path db = dir.resolve("ledger.db");
        assertRefused("idempotent-relay: purge: --days is required (or relay.purge.days in --config FILE, or RELAY_PURGE_DAYS)",
                OneShot.run("purge", "--db", db.toString()));
        // given by the file and a variable, the ledger must still exist: purge does not create one
        Path config = Files.writeString(dir.resolve("purge.properties"), "relay.purge.days = 30\n");
        assertRefused("idempotent-relay: purge: no ledger at " + db + " (the relay creates it on its first start)",
                OneShot.withEnvironment(Map.of("RELAY_DB", db.toString()), "purge", "--config", config.toString()));
    }

    @Test
    void everyCheckedPropertyIsOneOfApplicationProperties() {
        Properties builtIn = Settings.builtIn();
        for (RelayProperty property : RelayProperty.values()) {
            assertTrue(builtIn.containsKey(property.key), property.key + " is not in application.properties");
            assertEquals(null, property.refusal(builtIn.getProperty(property.key)), property.key + ": its built-in value is refused");
        }
    }
}
