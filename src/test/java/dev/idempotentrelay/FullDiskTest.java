package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 3, on a real full disk: the SQLite ledger on a tmpfs of a few MiB that the test mounts (as root; skipped
 * with a message where it cannot), filled up under eight channels of new GUIDs. While the disk is full a claim cannot be
 * written: the channel gets E902, the core is not called, and the GUID has no row, ever (SQLite may roll back the
 * writer's transaction by itself on SQLITE_FULL; no write may then run outside a transaction and stay durable). GET
 * /health's probe commit, a real write through the group-commit writer, says the ledger is DOWN, and so does
 * relay_ledger_writable; both UP again once space is freed, when transfers are served again without a restart.
 */
class FullDiskTest {

    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;

    private Path disk;
    private boolean mounted;
    private CoreSimulator core;
    private RelayUnderTest relay;

    @BeforeEach
    void mountSmallDisk() throws Exception {
        disk = Files.createDirectory(dir.resolve("disk"));
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "skipped: mounting a small tmpfs for the full-disk test needs root (CI runs as root)");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", disk.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes());
        mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        Assumptions.assumeTrue(mounted, "skipped: cannot mount a tmpfs here (" + out.strip() + ")");
    }

    @AfterEach
    void unmount() throws Exception {
        if (relay != null) {
            relay.close();
        }
        if (core != null) {
            core.close();
        }
        if (mounted) {
            new ProcessBuilder("umount", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFullDiskGivesE902WithoutARowOrACoreCallAndHealthDownUntilSpaceIsFreed() throws Exception {
        core = CoreSimulator.start(0, 1_000);
        CoreClient coreView = new CoreClient(core.url());
        relay = RelayUnderTest.on(disk.resolve("ledger.db"), core.url()).start();
        // all but some 300 KiB of the disk taken by another file, as another program's log might
        Path filler = disk.resolve("filler");
        fill(filler, Files.getFileStore(disk).getUsableSpace() - 300 * 1024);

        Map<String, String> replies = new ConcurrentHashMap<>();
        AtomicInteger e902 = new AtomicInteger();
        AtomicBoolean freed = new AtomicBoolean();
        AtomicInteger servedAfterFreeing = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService channels = Executors.newFixedThreadPool(8);
        List<Future<?>> load = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            load.add(channels.submit(() -> {
                try (Channel channel = Channel.open(relay.port)) {
                    while (!stop.get()) {
                        String guid = newGuid();
                        boolean afterFreeing = freed.get();
                        String code = Telegram.rspCode(channel.send(transfer(guid)));
                        replies.put(guid, code);
                        if (code.equals("E902")) {
                            e902.incrementAndGet();
                        } else if (code.equals("0000") && afterFreeing) {
                            servedAfterFreeing.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        try {
            Await.until("claims refused for a full disk", Duration.ofSeconds(90), () -> e902.get() >= 50);
            Await.until("/health says the ledger is DOWN", Duration.ofSeconds(30), () -> "DOWN".equals(health(503).get("ledger").asText()));
            JsonNode down = health(503);
            assertTrue(down.toString().contains("full"), "the failing check names the full disk: " + down);
            Await.until("relay_ledger_writable says so", Duration.ofSeconds(30), () -> relay.admin().metric("relay_ledger_writable") == 0.0);
            assertTrue(relay.admin().metrics().get("relay_ledger_bytes") > 0);

            // space freed: the same relay serves again, and says so
            Files.delete(filler);
            freed.set(true);
            Await.until("transfers served again", Duration.ofSeconds(30), () -> servedAfterFreeing.get() >= 50);
            Await.until("/health says the ledger is UP", Duration.ofSeconds(30), () -> "UP".equals(health(200).get("ledger").asText()));
            assertEquals(1.0, relay.admin().metric("relay_ledger_writable"));
        } finally {
            stop.set(true);
            channels.shutdown();
            for (Future<?> f : load) {
                f.get(60, TimeUnit.SECONDS);
            }
        }

        int refused = 0;
        for (Map.Entry<String, String> reply : replies.entrySet()) {
            String guid = reply.getKey();
            switch (reply.getValue()) {
                case "E902" -> {
                    // the channel was told the claim failed: it is not in the ledger, and the core never saw it
                    assertNull(relay.ledger.row(guid), guid + " was answered E902 but has a row");
                    assertEquals(0, coreView.calls(guid), guid);
                    refused++;
                }
                case "0000" -> {
                    // the core's answer reached the channel; the row is DONE, or SENT where the result could not be recorded
                    Map<String, Object> row = relay.ledger.row(guid);
                    assertTrue(row != null && List.of("DONE", "SENT").contains(row.get("state")), guid + ": " + row);
                    assertEquals(1, coreView.calls(guid), guid);
                }
                default -> throw new AssertionError(guid + " answered " + reply.getValue());
            }
        }
        assertTrue(refused >= 50, "E902 replies: " + refused);
        assertEquals(replies.size() - refused, coreView.calls(), "one core call per transfer answered 0000, none for E902");
    }

    private JsonNode health(int status) throws Exception {
        var response = relay.admin().get("/health");
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
    }

    private static void fill(Path file, long bytes) throws IOException {
        ByteBuffer block = ByteBuffer.allocate(64 * 1024);
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long written = 0;
            while (written + block.capacity() <= bytes) {
                block.clear();
                written += out.write(block);
            }
        }
    }
}
