package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQLite ledger on a disk that fills up (a 2 MB tmpfs, filled by another file): GET /health's probe commit, a real
 * write through the group-commit writer, is DOWN while the ledger cannot grow (the probe that rolled back stayed UP
 * there), and UP again once there is room. Needs to mount a tmpfs (root, as CI runs); skipped otherwise.
 */
class FullDiskLedgerTest {

    @TempDir
    Path dir;
    private Path disk;
    private boolean mounted;

    @BeforeEach
    void smallDisk() throws Exception {
        disk = Files.createDirectory(dir.resolve("disk"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk.toString())
                .redirectErrorStream(true).start();
        mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        assumeTrue(mounted, "cannot mount a tmpfs here (not root?): " + new String(mount.getInputStream().readAllBytes()));
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            new ProcessBuilder("umount", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theLedgerIsDownWhileItsDiskIsFullAndUpAgainOnceThereIsRoom() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 1_000);
                RelayUnderTest relay = RelayUnderTest.on(disk.resolve("ledger.db"), core.url()).start()) {
            CoreClient coreView = new CoreClient(core.url());
            assertEquals("0000", Telegram.rspCode(send(relay, newGuid())));
            assertEquals("UP", relay.admin().json("/health", 200).get("ledger").asText());

            Path filler = disk.resolve("filler");
            fill(filler);
            JsonNode health = relay.admin().json("/health", 503);
            assertEquals("DOWN", health.get("ledger").asText(), health.toString());
            assertTrue(health.get("checks").toString().contains("the ledger cannot be written"), health.toString());
            assertEquals(0.0, relay.admin().metric("relay_ledger_writable"));
            String guid = newGuid();
            assertEquals("E902", Telegram.rspCode(send(relay, guid)));
            assertEquals(0, coreView.calls(guid));

            Files.delete(filler);
            assertEquals("UP", relay.admin().json("/health", 200).get("ledger").asText());
            assertEquals(1.0, relay.admin().metric("relay_ledger_writable"));
            assertEquals("0000", Telegram.rspCode(send(relay, guid)));
            assertEquals(1, coreView.calls(guid));
        }
    }

    /** Writes to the file until the disk has no room left. */
    private static void fill(Path filler) throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }

    private static byte[] send(RelayUnderTest relay, String guid) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return channel.send(transfer(guid));
        }
    }
}
