package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 8 with the packaged jar, as an operator runs it: a relay with mutual TLS, an allow list and an admin
 * token; {@code send} over TLS as the channel of its certificate, as another channel, without a certificate and
 * without TLS; the WARN lines; and no password or token in any line the relay printed (its {@code --dump-routes}
 * included), in {@code /routes} or on either process's command line. Then the settings that refuse to start.
 */
class ChannelSecurityIT {

    private static final Duration START = Duration.ofSeconds(60);
    private static final String TOKEN = "it-admin-token-5b2f90";

    @TempDir
    Path dir;

    @Test
    void aMutualTlsRelayServesItsChannelsOverTlsAndShowsNoSecret() throws Exception {
        TestCertificates certificates = TestCertificates.get();
        Map<String, String> environment = new HashMap<>(TestCertificates.passwords());
        environment.put("RELAY_ADMIN_TOKEN", TOKEN);
        int port = Ports.free();
        int corePort = Ports.free();
        int adminPort = Ports.free();
        try (JarProcess relay = JarProcess.start(dir, environment, "run", "--core-sim", "--core", "http://localhost:" + corePort,
                "--port", Integer.toString(port), "--admin-port", Integer.toString(adminPort), "--db", "tls.db", "--no-jobs",
                "--tls-keystore", certificates.relay.toString(), "--tls-truststore", certificates.trust.toString(),
                "--channel-allow", "127.0.0.1/32", "--dump-routes")) {
            relay.awaitLine("listening on port " + port, START);
            List<JarProcess> sends = new ArrayList<>();

            String guid = newGuid();
            JarProcess mob1 = send(sends, TestCertificates.passwords(), port, guid, "MOB1",
                    "--tls-truststore", certificates.trust.toString(), "--tls-keystore", certificates.mob1.toString());
            assertEquals(0, mob1.exitCode(), mob1.errors().toString());
            assertTrue(mob1.output().contains("rsp_code      0000"), mob1.output().toString());

            JarProcess atm1 = send(sends, TestCertificates.passwords(), port, newGuid(), "ATM1",
                    "--tls-truststore", certificates.trust.toString(), "--tls-keystore", certificates.mob1.toString());
            assertEquals(0, atm1.exitCode(), atm1.errors().toString());
            assertTrue(atm1.output().contains("rsp_code      E403"), atm1.output().toString());
            relay.awaitLine("no row, answered E403, core not called, channel ATM1", Duration.ofSeconds(10));

            JarProcess noCertificate = send(sends, TestCertificates.passwords(), port, newGuid(), "MOB1",
                    "--tls-truststore", certificates.trust.toString());
            assertEquals(1, noCertificate.exitCode());
            assertTrue(noCertificate.errors().get(0).startsWith("idempotent-relay: send: no reply from localhost:" + port + ": "), noCertificate.errors().toString());
            relay.awaitLine("TLS handshake failed: Empty client certificate chain", Duration.ofSeconds(10));

            JarProcess plain = send(sends, Map.of(), port, newGuid(), "MOB1");
            assertEquals(1, plain.exitCode());
            assertEquals(List.of("idempotent-relay: send: the relay closed the connection without a reply"), plain.errors());
            relay.awaitLine("TLS handshake failed: what arrived is not TLS (a plain TCP client?)", Duration.ofSeconds(10));

            try (Channel outsider = Channel.openFrom("127.0.0.2", port)) {
                assertEquals(0, outsider.readUntilClosed().length);
            }
            relay.awaitLine("closing the connection from 127.0.0.2: the address is not in the channel allow list 127.0.0.1/32",
                    Duration.ofSeconds(10));

            AdminClient admin = new AdminClient("http://127.0.0.1:" + adminPort);
            assertEquals(200, admin.get("/health").statusCode());
            assertEquals(401, admin.get("/metrics").statusCode());
            assertEquals(1, admin.withToken(TOKEN).metric("relay_replies_total{code=\"E403\"}"));
            assertEquals(1, admin.withToken(TOKEN).metric("relay_replies_total{code=\"0000\"}"));
            assertEquals(1, new CoreClient("http://localhost:" + corePort).calls());
            String routes = admin.withToken(TOKEN).get("/routes").body();

            List<String> everything = new ArrayList<>(relay.output());
            everything.addAll(relay.errors());
            everything.add(routes);
            relay.commandLine().ifPresent(everything::add);
            for (JarProcess send : sends) {
                everything.addAll(send.output());
                everything.addAll(send.errors());
                send.commandLine().ifPresent(everything::add);
            }
            assertTrue(relay.output().stream().anyMatch(l -> l.contains("ssl=true") && l.contains("needClientAuth=true")),
                    "--dump-routes printed the listener with TLS");
            for (String line : everything) {
                assertTrue(!line.contains(TestCertificates.PASSWORD) && !line.contains(TOKEN), "a secret in: " + line);
            }
            relay.commandLine().ifPresent(line -> assertTrue(line.contains("--tls-keystore"), line));
        }
    }

    private JarProcess send(List<JarProcess> sends, Map<String, String> environment, int port, String guid, String channel,
            String... tls) throws Exception {
        List<String> args = new ArrayList<>(List.of("send", "--port", Integer.toString(port), "--guid", guid,
                "--from", "1002003004005006", "--to", "2003004005006007", "--amount", "10000", "--channel", channel));
        args.addAll(List.of(tls));
        JarProcess send = JarProcess.run(dir, environment, args.toArray(new String[0]));
        sends.add(send);
        return send;
    }

    @Test
    void settingsThatWouldOpenTheRelayOrCannotWorkAreOneLineAndExit2() throws Exception {
        TestCertificates certificates = TestCertificates.get();
        String[] run = {"run", "--db", "refused.db", "--no-jobs", "--port", Integer.toString(Ports.free()),
            "--admin-port", Integer.toString(Ports.free()), "--core", "http://localhost:" + Ports.free()};
        assertRefused(Map.of(), "idempotent-relay: run: the relay did not start: the admin endpoint may listen on 0.0.0.0, which is "
                + "not a loopback address, only with a token: set the environment variable RELAY_ADMIN_TOKEN", run, "--admin-host", "0.0.0.0");
        assertRefused(Map.of(), "idempotent-relay: run: '10.0.0.0/8;10.1.0.0/16' in --channel-allow (relay.channel.allow) is not a "
                + "CIDR such as 10.1.0.0/16 or 192.168.7.12/32", run, "--channel-allow", "10.0.0.0/8;10.1.0.0/16");
        assertRefused(Map.of("RELAY_TLS_KEYSTORE_PASSWORD", "wrong-password-1"), "idempotent-relay: run: the relay did not start: "
                + "cannot open the TLS keystore (--tls-keystore, relay.tls.keystore) " + certificates.relay
                + " as PKCS12: keystore password was incorrect", run, "--tls-keystore", certificates.relay.toString());
        assertRefused(Map.of(), "idempotent-relay: run: the relay did not start: --tls-keystore needs its password in the environment "
                + "variable RELAY_TLS_KEYSTORE_PASSWORD", run, "--tls-keystore", certificates.relay.toString());
        JarProcess send = JarProcess.run(dir, Map.of(), "send", "--guid", newGuid(), "--from", "A", "--to", "B", "--amount", "1",
                "--tls-truststore", certificates.trust.toString());
        assertEquals(2, send.exitCode());
        assertEquals(List.of("idempotent-relay: send: --tls-truststore needs its password in the environment variable "
                + "RELAY_TLS_TRUSTSTORE_PASSWORD"), send.errors());
    }

    private void assertRefused(Map<String, String> environment, String line, String[] run, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(run));
        args.addAll(List.of(more));
        JarProcess refused = JarProcess.run(dir, environment, args.toArray(new String[0]));
        assertEquals(2, refused.exitCode(), refused.errors().toString());
        assertEquals(List.of(line), refused.errors());
        assertTrue(refused.output().stream().noneMatch(l -> l.contains("wrong-password-1") || l.contains("Exception")),
                refused.output().toString());
    }

    @Test
    void aChannelPortWithoutTlsFlagsStaysPlainTcp() throws Exception {
        int port = Ports.free();
        try (JarProcess relay = JarProcess.start(dir, "run", "--core-sim", "--core", "http://localhost:" + Ports.free(),
                "--port", Integer.toString(port), "--admin-port", Integer.toString(Ports.free()), "--db", "plain.db", "--no-jobs");
                Channel channel = Channel.open(awaitListening(relay, port))) {
            assertEquals("0000", dev.idempotentrelay.telegram.Telegram.rspCode(channel.send(transfer(newGuid()))));
        }
    }

    private static int awaitListening(JarProcess relay, int port) throws Exception {
        relay.awaitLine("listening on port " + port, START);
        return port;
    }
}
