package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerMigrations;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a DBA's long reader, a cron job and a rolling deploy do to the channels on a PostgreSQL ledger: nothing. A read
 * transaction holds tx (as a report or pg_dump does) while a relay serves 16 channels; beside it the purge runs, a second
 * relay starts, and the next release's migrate (a real migration of tx, ACCESS EXCLUSIVE) waits at most its lock timeout
 * per try, gives up naming the reader, and succeeds once the reader is gone. No claim is refused (E902) meanwhile. And a
 * start on a current ledger takes no lock that a writer's EXCLUSIVE lock on tx would hold up.
 */
class SchemaLockTest {

    private static final int CHANNELS = 16;

    @RegisterExtension
    final Resources running = new Resources();

    @Test
    void aLongReaderTheCronPurgeASecondRelayAndTheNextMigrateNeverHoldUpTheChannels() throws Exception {
        String db = Postgres.shared().newLedger();
        LedgerFile ledger = LedgerFile.at(db);
        ledger.fill("OLDDONE", 200, "DONE", "0000", 8 * 24 * 3_600);
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(db, core.url()).with("relay.jobs.enabled", "false").start());

        Map<String, AtomicLong> codes = new ConcurrentHashMap<>();
        LongAccumulator slowestMs = new LongAccumulator(Math::max, 0);
        AtomicLong replies = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService channels = Executors.newFixedThreadPool(CHANNELS);
        Future<?>[] load = new Future<?>[CHANNELS];
        for (int i = 0; i < CHANNELS; i++) {
            load[i] = channels.submit(() -> {
                try (Channel channel = Channel.open(relay.port)) {
                    while (!stop.get()) {
                        long sent = System.nanoTime();
                        String code = Telegram.rspCode(channel.send(transfer(newGuid())));
                        slowestMs.accumulate(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
                        codes.computeIfAbsent(code, c -> new AtomicLong()).incrementAndGet();
                        replies.incrementAndGet();
                    }
                }
                return null;
            });
        }
        try (Connection reader = DriverManager.getConnection(db + "&ApplicationName=a-long-report")) {
            awaitReplies(replies, 200);
            // the reader: a transaction that has read tx, and holds its ACCESS SHARE lock until it ends
            reader.setAutoCommit(false);
            try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM tx")) {
                r.next();
            }

            OneShot purge = OneShot.run("purge", "--db", db, "--days", "7");
            assertEquals(0, purge.exitCode, purge.toString());
            assertTrue(purge.summary().startsWith("purge: 200 deleted in "), purge.toString());

            RelayUnderTest second = running.keep(RelayUnderTest.onLedger(db, core.url()).with("relay.jobs.enabled", "false").start());
            try (Channel channel = Channel.open(second.port)) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }

            LedgerMigrations nextRelease = nextRelease(db, 3);
            long before = replies.get();
            LedgerMigrations.MigrationLockedException gaveUp = assertThrows(LedgerMigrations.MigrationLockedException.class,
                    () -> nextRelease.migrate(line -> { }));
            assertTrue(gaveUp.getMessage().startsWith("gave up after 3 attempts, each waiting at most 1000 ms for a lock on the ledger:"
                    + " held by pid "), gaveUp.getMessage());
            assertTrue(gaveUp.getMessage().contains("application a-long-report") && gaveUp.getMessage().contains("on tx in a transaction open since "),
                    gaveUp.getMessage());
            assertTrue(replies.get() > before, "the channels were answered while the migration waited");
            reader.rollback();
        }
        // the reader gone, the same migration goes through, and the relays run on: it only adds
        assertEquals("7", nextRelease(db, 3).migrate(line -> { }).version());
        awaitReplies(replies, replies.get() + 100);
        stop.set(true);
        for (Future<?> channel : load) {
            channel.get(60, TimeUnit.SECONDS);
        }
        channels.shutdown();
        System.out.println("SchemaLockTest: " + replies.get() + " replies " + codes + ", the slowest " + slowestMs.get() + " ms");
        assertEquals(List.of("0000"), List.copyOf(codes.keySet()), "every transfer answered 0000, none refused: " + codes);
    }

    @Test
    void aStartOnACurrentLedgerTakesNoLockAWritersExclusiveLockOnTxHoldsUp() throws Exception {
        String db = Postgres.shared().newLedger();
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        try (Connection writer = DriverManager.getConnection(db)) {
            writer.setAutoCommit(false);
            try (Statement s = writer.createStatement()) {
                // EXCLUSIVE conflicts with every lock but ACCESS SHARE
                s.execute("LOCK TABLE tx, tx_history IN EXCLUSIVE MODE");
            }
            RelayUnderTest relay = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> RelayUnderTest.onLedger(db, core.url()).with("relay.jobs.enabled", "false").start(),
                    "the relay's start waited for a lock on tx");
            running.keep(relay);
            OneShot stats = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> OneShot.run("ledger", "stats", "--db", db));
            assertEquals(0, stats.exitCode, stats.toString());
            writer.rollback();
        }
    }

    private static LedgerMigrations nextRelease(String db, int attempts) {
        PGSimpleDataSource ledger = new PGSimpleDataSource();
        ledger.setURL(db);
        return new LedgerMigrations(ledger, LedgerDialect.POSTGRESQL, 1_000, attempts,
                LedgerMigrations.location(LedgerDialect.POSTGRESQL), "classpath:db/next-release");
    }

    private static void awaitReplies(AtomicLong replies, long atLeast) throws Exception {
        Await.until(atLeast + " replies", Duration.ofSeconds(60), () -> replies.get() >= atLeast);
    }
}
