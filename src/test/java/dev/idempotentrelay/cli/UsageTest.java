package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Refusal.assertNoStackTrace;
import static dev.idempotentrelay.support.Refusal.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.OneShot;
import java.util.List;
import org.junit.jupiter.api.Test;

/** No command is usage on stderr and exit 2; --help is usage on stdout and exit 0; every error line names its command. */
class UsageTest {

    @Test
    void noCommandIsOneLineThenTheUsageOnStderrAndExit2() {
        OneShot none = OneShot.run();
        assertEquals(2, none.exitCode, none.toString());
        assertEquals(List.of(), none.out);
        assertEquals("idempotent-relay: no command given", none.err.get(0));
        assertEquals(List.of(RelayCommand.USAGE.split("\n")), none.err.subList(1, none.err.size()));
        assertNoStackTrace(none.out, none.err);
    }

    @Test
    void helpIsTheUsageOnStdoutAndExit0() {
        for (String help : List.of("--help", "-h", "help")) {
            OneShot run = OneShot.run(help);
            assertEquals(0, run.exitCode, run.toString());
            assertEquals(List.of(RelayCommand.USAGE.split("\n")), run.out);
            assertEquals(List.of(), run.err);
        }
    }

    @Test
    void everyErrorLineStartsWithTheProgramAndTheCommand() throws Exception {
        assertRefused("idempotent-relay: deploy: unknown command (run, resolve, reprocess, purge, migrate, core-sim, send, ledger, bench, routes)",
                OneShot.run("deploy"));
        assertRefused("idempotent-relay: core-sim: unknown flag --colour", OneShot.run("core-sim", "--colour", "blue"));
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            assertRefused("idempotent-relay: core-sim: port " + taken.getLocalPort() + " is already in use (core simulator)",
                    OneShot.run("core-sim", "--port", Integer.toString(taken.getLocalPort())));
        }
        assertRefused("idempotent-relay: bench: --resend-ratio must be a number from 0 to 1, not '2'",
                OneShot.run("bench", "--resend-ratio", "2"));
        assertRefused("idempotent-relay: purge: --days is required (or relay.purge.days in --config FILE, or RELAY_PURGE_DAYS)",
                OneShot.run("purge", "--db", "relay.db"));
        OneShot noRelay = OneShot.run("bench", "--port", "1", "--connections", "1", "--duration", "1");
        assertEquals(1, noRelay.exitCode, noRelay.toString());
        assertTrue(noRelay.err.size() == 1 && noRelay.err.get(0).startsWith("idempotent-relay: bench: connection bench-0: "), noRelay.toString());
    }
}
