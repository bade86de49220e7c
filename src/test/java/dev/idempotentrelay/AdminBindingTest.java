package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin endpoint listens on the loopback address only, unless --admin-host says otherwise. Seen two ways:
 * the kernel's table of listening sockets names 127.0.0.1 as its address (::ffff:127.0.0.1 on a dual-stack
 * socket), not 0.0.0.0 or ::; and a connection to
 * 127.0.0.2, an address of this machine that a server listening on all addresses accepts (the second test shows
 * it), is refused. No traffic leaves the loopback range.
 */
class AdminBindingTest {

    @TempDir
    Path dir;

    @Test
    void byDefaultTheAdminPortListensOnTheLoopbackAddressOnly() throws Exception {
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free()).start()) {
            assertEquals(200, relay.admin().get("/health").statusCode());
            assertEquals(List.of("127.0.0.1"), listeningAddresses(relay.adminPort));
            assertThrows(ConnectException.class, () -> connect("127.0.0.2", relay.adminPort));
        }
    }

    @Test
    void adminHostOpensItOnEveryAddressWhenAnOperatorSaysSo() throws Exception {
        // beyond loopback only with a token (AdminTokenTest)
        try (RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free())
                .with("relay.admin.host", "0.0.0.0").environment(java.util.Map.of("RELAY_ADMIN_TOKEN", "a-token")).start()) {
            List<String> listening = listeningAddresses(relay.adminPort);
            assertFalse(listening.contains("127.0.0.1"), listening.toString());
            assertTrue(listening.contains("0.0.0.0") || listening.contains("::"), listening.toString());
            connect("127.0.0.2", relay.adminPort);
        }
    }

    @Test
    void aBusyAdminPortFailsTheStartWithTheReason() throws Exception {
        try (java.net.ServerSocket busy = new java.net.ServerSocket()) {
            busy.bind(new InetSocketAddress("127.0.0.1", 0));
            Exception e = assertThrows(Exception.class, () -> RelayUnderTest.on(dir.resolve("ledger.db"), "http://localhost:" + Ports.free())
                    .with("relay.admin.port", Integer.toString(busy.getLocalPort())).start().close());
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            // run prints this root message on its one stderr line, and exits 2
            assertEquals("the admin endpoint cannot listen on 127.0.0.1:" + busy.getLocalPort() + ": Address already in use",
                    root.getMessage());
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void linux() {
        assumeTrue(Files.exists(Path.of("/proc/net/tcp")), "the kernel's socket table is read from /proc/net/tcp (Linux)");
    }

    private static void connect(String host, int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5_000);
        }
    }

    /** The local addresses of the sockets listening on {@code port}, from /proc/net/tcp and /proc/net/tcp6. */
    private static List<String> listeningAddresses(int port) throws IOException {
        List<String> addresses = new ArrayList<>();
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file)) {
                String[] fields = line.trim().split("\\s+");
                // sl local_address rem_address st ...; st 0A is LISTEN
                if (fields.length > 3 && fields[1].endsWith(":" + hexPort) && fields[3].equals("0A")) {
                    addresses.add(address(fields[1].substring(0, fields[1].indexOf(':'))));
                }
            }
        }
        return addresses;
    }

    /** An address as /proc writes it (hex, each 32-bit word little-endian) in the usual notation. */
    private static String address(String hex) {
        if (hex.length() == 8) {
            long n = Long.parseLong(hex, 16);
            return (n & 0xff) + "." + ((n >> 8) & 0xff) + "." + ((n >> 16) & 0xff) + "." + ((n >> 24) & 0xff);
        }
        if (hex.startsWith("0000000000000000FFFF0000")) {
            return address(hex.substring(24)); // an IPv4 address on a dual-stack socket: ::ffff:a.b.c.d
        }
        return hex.chars().allMatch(c -> c == '0') ? "::" : "ipv6:" + hex;
    }
}
