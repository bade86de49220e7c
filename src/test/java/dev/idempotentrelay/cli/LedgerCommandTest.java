package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Refusal;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ledger show, list and stats read the ledger file directly, while a running relay writes it. */
class LedgerCommandTest {

    @TempDir
    Path dir;

    @Test
    void theLedgerCommandsReadALedgerThatARunningRelayIsWriting() throws Exception {
        Path db = dir.resolve("ledger.db");
        try (CoreSimulator core = CoreSimulator.start(0, 1_000);
                RelayUnderTest relay = RelayUnderTest.on(db, core.url()).start()) {
            String guid = newGuid();
            byte[] request = transfer(guid, 4_321, "books");
            byte[] reply;
            try (Channel channel = Channel.open(relay.port)) {
                reply = channel.send(request);
            }
            String unknown = newGuid();
            relay.ledger.insert(unknown, "UNKNOWN", "E901", transfer(unknown), null, 1, 90);

            // a channel keeps sending new transfers while the commands read: at most 300, until the reads are done
            AtomicBoolean reading = new AtomicBoolean(true);
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<Integer> written = writer.submit(() -> {
                int n = 0;
                try (Channel channel = Channel.open(relay.port)) {
                    while (reading.get() && n < 300) {
                        if (!Telegram.rspCode(channel.send(transfer(newGuid()))).equals("0000")) {
                            throw new AssertionError("a transfer was not accepted");
                        }
                        n++;
                    }
                }
                return n;
            });
            try {
                for (int round = 0; round < 5; round++) {
                    OneShot show = OneShot.run("ledger", "show", guid, "--db", db.toString());
                    assertEquals(0, show.exitCode, show.toString());
                    Map<String, String> fields = fields(show.out);
                    assertEquals("DONE", fields.get("state"));
                    assertEquals("0000", fields.get("rsp_code"));
                    assertEquals("1", fields.get("attempts"));
                    assertEquals("1002003004005006", fields.get("request.from"));
                    assertEquals("4321", fields.get("request.amount"));
                    assertEquals("books", fields.get("request.memo"));
                    assertEquals(Telegram.field(reply, Telegram.CORE_REF, Telegram.CORE_REF_WIDTH), fields.get("reply.core_ref"));
                    assertEquals(text(reply), fields.get("reply.raw"));
                    assertEquals(text(request), fields.get("request.raw"));
                    assertEquals("channel", fields.get("cause"));
                    // then its history: claimed by the channel's transfer, then done
                    List<String> history = show.out.subList(show.out.indexOf("history") + 1, show.out.size());
                    assertEquals(3, history.size(), show.toString());
                    assertTrue(history.get(0).matches("at\\s+from_state\\s+to_state\\s+rsp_code\\s+attempts\\s+relay\\s+cause"), history.get(0));
                    assertTrue(history.get(1).matches("\\S+ \\S+\\s+-\\s+SENT\\s+-\\s+1\\s+\\S+:" + relay.port + "\\s+channel"), history.get(1));
                    assertTrue(history.get(2).matches("\\S+ \\S+\\s+SENT\\s+DONE\\s+0000\\s+1\\s+\\S+:" + relay.port + "\\s+channel"), history.get(2));
                    OneShot alone = OneShot.run("ledger", "history", guid, "--db", db.toString());
                    assertEquals(0, alone.exitCode, alone.toString());
                    assertEquals(history, alone.out);

                    OneShot list = OneShot.run("ledger", "list", "--state", "UNKNOWN", "--db", db.toString());
                    assertEquals(0, list.exitCode, list.toString());
                    assertEquals(2, list.out.size(), list.toString());
                    assertTrue(list.out.get(1).startsWith(unknown + "  UNKNOWN   E901      1 "), list.out.get(1));

                    OneShot limited = OneShot.run("ledger", "list", "--state", "DONE", "--limit", "1", "--db", db.toString());
                    assertEquals(0, limited.exitCode, limited.toString());
                    assertEquals(2, limited.out.size(), limited.toString());

                    OneShot stats = OneShot.run("ledger", "stats", "--db", db.toString());
                    assertEquals(0, stats.exitCode, stats.toString());
                    Map<String, Long> rows = rows(stats.out);
                    assertEquals(1, rows.get("UNKNOWN"));
                    assertTrue(rows.get("DONE") >= 1, stats.toString());
                    assertEquals(rows.get("DONE") + rows.get("UNKNOWN") + rows.get("SENT"), rows.get("total"));
                }
            } finally {
                reading.set(false);
                writer.shutdown();
            }
            int sent = written.get();
            Map<String, Long> rows = rows(OneShot.run("ledger", "stats", "--db", db.toString()).out);
            assertEquals(sent + 1, rows.get("DONE"));
            assertEquals(sent + 2, rows.get("total"));
            assertEquals(relay.ledger.count(), rows.get("total"));
        }
        // and with the relay stopped
        assertEquals(0, OneShot.run("ledger", "stats", "--db", db.toString()).exitCode);
    }

    @Test
    void badArgumentsOrNoLedgerAreOneLineAndExit2AndAnUnknownGuidIsExit1() throws Exception {
        Path db = dir.resolve("ledger.db");
        RelayUnderTest.on(db, "http://localhost:1").start().close();
        String missing = newGuid();
        OneShot unknown = OneShot.run("ledger", "show", missing, "--db", db.toString());
        assertEquals(1, unknown.exitCode);
        assertEquals(List.of("idempotent-relay: ledger show: no row for guid " + missing + " in " + db), unknown.err);
        OneShot noHistory = OneShot.run("ledger", "history", missing, "--db", db.toString());
        assertEquals(1, noHistory.exitCode);
        assertEquals(List.of("idempotent-relay: ledger history: no history for guid " + missing + " in " + db
                + ": never claimed there, or longer ago than relay.history.days"), noHistory.err);
        assertUsage("idempotent-relay: ledger history: say which GUID", "ledger", "history");

        assertUsage("idempotent-relay: ledger list: --state must be one of RECEIVED, SENT, DONE, UNKNOWN, FAILED, not 'LOST'",
                "ledger", "list", "--state", "LOST", "--db", db.toString());
        assertUsage("idempotent-relay: ledger list: --state is required", "ledger", "list", "--db", db.toString());
        assertUsage("idempotent-relay: ledger list: --limit must be at most 1000, not 5000",
                "ledger", "list", "--state", "DONE", "--limit", "5000", "--db", db.toString());
        assertUsage("idempotent-relay: ledger show: a GUID is 32 letters and digits, not 'abc'", "ledger", "show", "abc");
        assertUsage("idempotent-relay: ledger show: say which GUID", "ledger", "show");
        assertUsage("idempotent-relay: ledger stats: no ledger at " + dir.resolve("none.db")
                + " (the relay creates it on its first start)", "ledger", "stats", "--db", dir.resolve("none.db").toString());
        Path notALedger = Files.writeString(dir.resolve("notes.txt"), "not a database, just text ".repeat(100));
        OneShot garbage = OneShot.run("ledger", "stats", "--db", notALedger.toString());
        assertEquals(2, garbage.exitCode, garbage.toString());
        assertEquals(1, garbage.err.size(), garbage.toString());
        assertTrue(garbage.err.get(0).startsWith("idempotent-relay: ledger stats: cannot read ledger " + notALedger + ": "), garbage.err.get(0));
        assertUsage("idempotent-relay: ledger: unknown subcommand 'drop'; say show GUID, history GUID, list --state S [--limit N], or stats; "
                + "each takes [--db PATH|URL] [--db-user U] [--config FILE]",
                "ledger", "drop");
    }

    @Test
    void aLedgerWhoseLockAnotherConnectionHoldsIsOneLineSayingItIsBusy() throws Exception {
        Path db = dir.resolve("ledger.db");
        RelayUnderTest.on(db, "http://localhost:1").start().close();
        // an exclusive lock, as a tool in exclusive locking mode or a crashed relay's recovery holds it
        try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + db); Statement statement = holder.createStatement()) {
            statement.execute("PRAGMA locking_mode = EXCLUSIVE");
            statement.execute("BEGIN EXCLUSIVE");
            statement.execute("DELETE FROM tx WHERE 0");
            Refusal.assertRefused("idempotent-relay: ledger stats: ledger " + db + " is busy: another process holds its lock "
                    + "(waited 5 s); try again", OneShot.run("ledger", "stats", "--db", db.toString()));
            statement.execute("ROLLBACK");
        }
        assertEquals(0, OneShot.run("ledger", "stats", "--db", db.toString()).exitCode);
    }

    @Test
    void theLedgerFileMayComeFromTheConfigFileOrRelayDbAndTheFlagWins() throws Exception {
        Path db = dir.resolve("ledger.db");
        RelayUnderTest.on(db, "http://localhost:1").start().close();
        Path config = Files.writeString(dir.resolve("relay.properties"), "relay.db = " + db + "\n");
        assertEquals(0, OneShot.run("ledger", "stats", "--config", config.toString()).exitCode);
        assertEquals(0, OneShot.withEnvironment(Map.of("RELAY_DB", db.toString()), "ledger", "list", "--state", "DONE").exitCode);
        Path none = dir.resolve("none.db");
        assertUsage("idempotent-relay: ledger stats: no ledger at " + none + " (the relay creates it on its first start)",
                "ledger", "stats", "--config", config.toString(), "--db", none.toString());
    }

    private static void assertUsage(String line, String... args) {
        OneShot run = OneShot.run(args);
        assertEquals(2, run.exitCode, run.toString());
        assertEquals(List.of(line), run.err);
        assertEquals(List.of(), run.out);
    }

    /** "name   value" lines as name -> value, up to the blank line before the history. */
    private static Map<String, String> fields(List<String> lines) {
        Map<String, String> fields = new TreeMap<>();
        for (String line : lines) {
            if (line.isEmpty()) {
                break;
            }
            int gap = line.indexOf("  ");
            fields.put(line.substring(0, gap), line.substring(gap).stripLeading());
        }
        return fields;
    }

    /** The stats table as state -> rows. */
    private static Map<String, Long> rows(List<String> lines) {
        Map<String, Long> rows = new TreeMap<>();
        for (String line : new ArrayList<>(lines).subList(1, lines.size())) {
            String[] cells = line.trim().split("\\s+");
            rows.put(cells[0], Long.parseLong(cells[1]));
        }
        return rows;
    }
}
