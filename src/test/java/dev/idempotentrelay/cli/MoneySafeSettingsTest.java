package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Refusal.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.RelayUnderTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings that could lose money are refused, exit 2, one line saying why (SPEC section 7): min-age or
 * sent-stale-after under 1, and for run a sent-stale-after not above the read timeout; whether a flag, a RELAY_*
 * variable or the --config file set them.
 */
class MoneySafeSettingsTest {

    private static final String MIN_AGE_WHY = "a transfer that the core is still applying would be asked about, found missing, and sent again";
    private static final String DAYS_WHY = "a transfer done moments ago would lose its row, and a channel's resend of it would be taken for a new one and sent again";
    private static final String STALE_WHY = "a call still waiting for the core would be taken for one cut off by a crash, found missing, and sent again";

    @TempDir
    Path dir;

    @Test
    void runRefusesAMinAgeOrASentStaleAfterUnderOneSecondFromAFlagAVariableOrTheConfigFile() throws Exception {
        assertRefused("idempotent-relay: run: --min-age must be a whole number of at least 1, not '0': " + MIN_AGE_WHY,
                OneShot.run("run", "--min-age", "0"));
        assertRefused("idempotent-relay: run: --sent-stale-after must be a whole number of at least 1, not '0': " + STALE_WHY,
                OneShot.run("run", "--sent-stale-after", "0"));
        assertRefused("idempotent-relay: run: RELAY_RESOLVE_MIN_AGE must be a whole number of at least 1, not '0': " + MIN_AGE_WHY,
                OneShot.withEnvironment(Map.of("RELAY_RESOLVE_MIN_AGE", "0"), "run"));
        Path config = Files.writeString(dir.resolve("relay.properties"), "relay.resolve.sent-stale-after = 0\n");
        assertRefused("idempotent-relay: run: relay.resolve.sent-stale-after in " + config + " must be a whole number of at least 1, "
                + "not '0': " + STALE_WHY, OneShot.run("run", "--config", config.toString()));
    }

    @Test
    void runRefusesASentStaleAfterNotAboveTheReadTimeoutWhereverEitherCameFrom() throws Exception {
        // 5 s against the built-in read timeout of 5000 ms
        assertRefused("idempotent-relay: run: --sent-stale-after (5 s) must be above the read timeout, relay.core.read-timeout-ms "
                + "(5000 ms): " + STALE_WHY, OneShot.run("run", "--sent-stale-after", "5"));
        // the read timeout raised by a variable above the built-in sent-stale-after of 120 s
        assertRefused("idempotent-relay: run: relay.resolve.sent-stale-after (120 s) must be above the read timeout, "
                + "RELAY_CORE_READ_TIMEOUT_MS (120000 ms): " + STALE_WHY,
                OneShot.withEnvironment(Map.of("RELAY_CORE_READ_TIMEOUT_MS", "120000"), "run"));
        Path config = Files.writeString(dir.resolve("relay.properties"), "relay.core.read-timeout-ms = 30000\n");
        assertRefused("idempotent-relay: run: RELAY_RESOLVE_SENT_STALE_AFTER (30 s) must be above the read timeout, relay.core."
                + "read-timeout-ms in " + config + " (30000 ms): " + STALE_WHY,
                OneShot.withEnvironment(Map.of("RELAY_RESOLVE_SENT_STALE_AFTER", "30"), "run", "--config", config.toString()));
        // one second above it is allowed: the flag wins over the file
        assertEquals("31", RunCommand.settings(new String[] {"run", "--config", config.toString(), "--sent-stale-after", "31"},
                Map.of()).get(RelayProperty.SENT_STALE_AFTER));
        assertEquals("5", RunCommand.settings(new String[] {"run", "--sent-stale-after", "5", "--read-timeout-ms", "4999"},
                Map.of()).get(RelayProperty.SENT_STALE_AFTER));
    }

    @Test
    void theOneShotResolveRefusesAMinAgeOrASentStaleAfterUnderOneSecond() throws Exception {
        Path db = dir.resolve("ledger.db");
        try (CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            RelayUnderTest.on(db, core.url()).start().close();
            assertRefused("idempotent-relay: resolve: --min-age must be a whole number of at least 1, not '0': " + MIN_AGE_WHY,
                    OneShot.run("resolve", "--db", db.toString(), "--core", core.url(), "--min-age", "0"));
            assertRefused("idempotent-relay: resolve: --sent-stale-after must be a whole number of at least 1, not '0': " + STALE_WHY,
                    OneShot.run("resolve", "--db", db.toString(), "--core", core.url(), "--min-age", "60", "--sent-stale-after", "0"));
            Path config = Files.writeString(dir.resolve("resolve.properties"), "relay.resolve.min-age = 0\n");
            assertRefused("idempotent-relay: resolve: relay.resolve.min-age in " + config + " must be a whole number of at least 1, "
                    + "not '0': " + MIN_AGE_WHY, OneShot.run("resolve", "--db", db.toString(), "--core", core.url(), "--config", config.toString()));
            assertRefused("idempotent-relay: resolve: RELAY_RESOLVE_SENT_STALE_AFTER must be a whole number of at least 1, not '0': "
                    + STALE_WHY, OneShot.withEnvironment(Map.of("RELAY_RESOLVE_SENT_STALE_AFTER", "0"),
                            "resolve", "--db", db.toString(), "--core", core.url(), "--min-age", "60"));
            // the one-shot resolve settles the SENT rows of a relay that died: 1 s is allowed, whatever the read timeout
            OneShot resolve = OneShot.run("resolve", "--db", db.toString(), "--core", core.url(), "--min-age", "1",
                    "--sent-stale-after", "1");
            assertEquals(0, resolve.exitCode, resolve.toString());
            assertEquals("resolve: 0 done, 0 failed, 0 kept", resolve.summary());
        }
    }

    @Test
    void purgeAndRunRefuseDaysUnderOneFromAFlagAVariableOrTheConfigFile() throws Exception {
        Path db = dir.resolve("ledger.db");
        assertRefused("idempotent-relay: purge: --days must be a whole number of at least 1, not '0': " + DAYS_WHY,
                OneShot.run("purge", "--db", db.toString(), "--days", "0"));
        assertRefused("idempotent-relay: run: RELAY_PURGE_DAYS must be a whole number of at least 1, not '0': " + DAYS_WHY,
                OneShot.withEnvironment(Map.of("RELAY_PURGE_DAYS", "0"), "run"));
        Path config = Files.writeString(dir.resolve("purge.properties"), "relay.purge.days = 0\n");
        assertRefused("idempotent-relay: purge: relay.purge.days in " + config + " must be a whole number of at least 1, not '0': "
                + DAYS_WHY, OneShot.run("purge", "--db", db.toString(), "--config", config.toString()));
        assertFalse(Files.exists(db), "a refused purge opens no ledger");
    }

    @Test
    void purgeAndRunRefuseAHistoryKeptFewerDaysThanTheRows() throws Exception {
        Path db = dir.resolve("ledger.db");
        RelayUnderTest.on(db, "http://localhost:1").start().close();
        String why = ": a GUID's history outlives its row, so that whether a GUID was ever here has an answer after the purge";
        assertRefused("idempotent-relay: purge: --history-days (20 days) must be at least --days (30 days)" + why,
                OneShot.run("purge", "--db", db.toString(), "--days", "30", "--history-days", "20"));
        assertRefused("idempotent-relay: run: RELAY_HISTORY_DAYS (5 days) must be at least relay.purge.days (7 days)" + why,
                OneShot.withEnvironment(Map.of("RELAY_HISTORY_DAYS", "5"), "run", "--db", db.toString()));
    }
}
