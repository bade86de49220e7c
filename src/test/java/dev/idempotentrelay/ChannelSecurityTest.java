package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LogLines;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Requests;
import dev.idempotentrelay.support.TestCertificates;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.apache.camel.support.jsse.SSLContextParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 8 on the channel port, over real TLS sockets with certificates made by keytool for the test
 * ({@link TestCertificates}): TLS, mutual TLS with the certificate's CN as the channel id a connection may send for,
 * and the allowed source addresses. Against the real core simulator and a real SQLite file.
 */
class ChannelSecurityTest {

    private static TestCertificates certificates;

    @TempDir
    Path dir;

    private CoreSimulator core;
    private CoreClient coreView;
    private LogLines log;

    @BeforeAll
    static void makeCertificates() {
        certificates = TestCertificates.get();
    }

    @BeforeEach
    void startCore() throws Exception {
        core = CoreSimulator.start(0, 1_000);
        coreView = new CoreClient(core.url());
        log = LogLines.capture();
    }

    @AfterEach
    void stopCore() {
        log.close();
        core.close();
    }

    private RelayUnderTest.Builder relay() {
        return RelayUnderTest.on(dir.resolve("ledger.db"), core.url());
    }

    @Test
    void aChannelWithAValidCertificateIsServedEndToEndOverTls13() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start();
                Channel channel = Channel.openTls(relay.port, TestCertificates.client(certificates.mob1))) {
            assertEquals("TLSv1.3", channel.tlsSession().getProtocol());
            String guid = newGuid();
            byte[] reply = channel.send(transfer(guid));
            assertEquals("0000", Telegram.rspCode(reply));
            assertEquals(Telegram.ACCEPTED_REPLY_LENGTH, reply.length);
            // a resend on the same connection replays the stored reply
            assertEquals(Requests.text(reply), Requests.text(channel.send(transfer(guid))));
            assertEquals("DONE", relay.ledger.row(guid).get("state"));
            assertEquals(1, coreView.calls(guid));
        }
    }

    @Test
    void aTls12ClientIsServedAndTheChannelPortSpeaksNoOlderVersion() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start();
                Channel channel = Channel.openTls(relay.port, TestCertificates.client(certificates.mob1), "TLSv1.2")) {
            assertEquals("TLSv1.2", channel.tlsSession().getProtocol());
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            // what camel-netty's SSL handler is made of: the relay's SSLContextParameters, as the listener uses them
            SSLEngine engine = relay.relay().context().getRegistry().lookupByNameAndType("channelTls", SSLContextParameters.class)
                    .createSSLContext(relay.relay().context()).createSSLEngine();
            assertEquals(List.of("TLSv1.3", "TLSv1.2"), List.of(engine.getEnabledProtocols()));
        }
    }

    @Test
    void aPlainTcpClientGetsNoReplyAndIsClosedWithAWarnLine() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start(); Channel plain = Channel.open(relay.port)) {
            String guid = newGuid();
            plain.write(transfer(guid));
            byte[] answer = plain.readUntilClosed();
            assertTrue(answer.length == 0 || !Requests.text(answer).contains(guid), "a reply to a plain client: " + Requests.text(answer));
            String warn = log.await(Duration.ofSeconds(10), "WARN", "TLS handshake failed", "not TLS (a plain TCP client?)");
            assertTrue(warn.contains("closing the connection from /127.0.0.1:"), warn);
            assertNull(relay.ledger.row(guid));
            assertEquals(0, coreView.calls());
        }
        // the plain client's bytes, in hex or not, appear in no log line
        assertTrue(log.lines().stream().noneMatch(l -> l.contains("303131325452") || l.contains("TR01Q")), log.lines().toString());
    }

    @Test
    void aClientWithoutACertificateIsClosedInTheHandshake() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start()) {
            assertClosedInTheHandshake(relay, TestCertificates.client(null));
            log.await(Duration.ofSeconds(10), "WARN", "TLS handshake failed");
        }
    }

    @Test
    void aCertificateFromAnotherCaIsClosedInTheHandshake() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start()) {
            assertClosedInTheHandshake(relay, TestCertificates.clientPresentingAnyway(certificates.intruder));
            String warn = log.await(Duration.ofSeconds(10), "WARN", "TLS handshake failed");
            assertTrue(warn.contains("certification path") || warn.contains("PKIX"), warn);
        }
    }

    /**
     * With TLS 1.3 the client's side of the handshake can end before the relay has checked its certificate: the
     * relay's refusal (an alert, then the close) then arrives on the first read. Either way no telegram is answered.
     */
    private void assertClosedInTheHandshake(RelayUnderTest relay, SSLContext client) throws Exception {
        String guid = newGuid();
        try (Channel channel = Channel.openTls(relay.port, client)) {
            try {
                channel.write(transfer(guid));
            } catch (IOException e) {
                // already closed
            }
            assertEquals(0, channel.readUntilClosed().length);
        } catch (IOException e) {
            // refused during the handshake itself
        }
        assertNull(relay.ledger.row(guid));
        assertEquals(0, coreView.calls());
    }

    @Test
    void aTelegramForAnotherChannelIsE403WithoutRowOrCoreCallAndTheConnectionServesOn() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().start();
                Channel channel = Channel.openTls(relay.port, TestCertificates.client(certificates.mob1))) {
            String refused = newGuid();
            byte[] reply = channel.send(Telegram.transferRequest(refused, "ATM1", Requests.FROM, Requests.TO, 10_000, "not mine"));
            assertEquals("E403", Telegram.rspCode(reply));
            assertEquals(Telegram.HEADER_LENGTH, reply.length);
            assertEquals("TR01R" + refused + "ATM1E403", Requests.text(reply));
            assertNull(relay.ledger.row(refused));
            assertEquals(0, coreView.calls());
            log.await(Duration.ofSeconds(10), "WARN", "E403 for guid " + refused, "channel ATM1", "for channel MOB1");

            // the same connection, its own channel: served
            String good = newGuid();
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(good))));
            assertEquals(1, coreView.calls(good));
            assertEquals(1, coreView.calls());
            Map<String, Double> metrics = relay.admin().metrics();
            assertEquals(1.0, metrics.get("relay_replies_total{code=\"E403\"}"));
            assertEquals(1.0, metrics.get("relay_replies_total{code=\"0000\"}"));
        }
    }

    @Test
    void channelIdsAreComparedAsTextNotAsNumbers() throws Exception {
        // Simple's == would take 0001 and 1 for the same number; the route compares them as text
        try (RelayUnderTest relay = relay().mutualTls().start();
                Channel channel = Channel.openTls(relay.port, TestCertificates.client(certificates.one))) {
            assertEquals("E403", Telegram.rspCode(channel.send(Telegram.transferRequest(newGuid(), "0001", Requests.FROM, Requests.TO, 1, ""))));
            assertEquals("E403", Telegram.rspCode(channel.send(Telegram.transferRequest(newGuid(), "01", Requests.FROM, Requests.TO, 1, ""))));
            assertEquals("0000", Telegram.rspCode(channel.send(Telegram.transferRequest(newGuid(), "1", Requests.FROM, Requests.TO, 1, ""))));
            assertEquals(1, coreView.calls());
        }
    }

    @Test
    void tlsWithoutATruststoreAsksNoCertificateAndChecksNoChannel() throws Exception {
        try (RelayUnderTest relay = relay().environment(TestCertificates.passwords())
                .with("relay.tls.keystore", certificates.relay.toString()).start();
                Channel channel = Channel.openTls(relay.port, TestCertificates.client(null))) {
            assertEquals("0000", Telegram.rspCode(channel.send(Telegram.transferRequest(newGuid(), "ATM1", Requests.FROM, Requests.TO, 1, ""))));
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
        }
    }

    @Test
    void withoutTlsTheChannelPortStaysPlainTcp() throws Exception {
        try (RelayUnderTest relay = relay().start(); Channel channel = Channel.open(relay.port)) {
            assertEquals("0000", Telegram.rspCode(channel.send(Telegram.transferRequest(newGuid(), "ATM1", Requests.FROM, Requests.TO, 1, ""))));
        }
    }

    @Test
    void aConnectionFromAnAddressOutsideTheAllowListIsClosedAtOnceWithAWarnLine() throws Exception {
        try (RelayUnderTest relay = relay().with("relay.channel.allow", "127.0.0.1/32").start()) {
            String refused = newGuid();
            try (Channel outsider = Channel.openFrom("127.0.0.2", relay.port)) {
                try {
                    outsider.write(transfer(refused));
                } catch (IOException e) {
                    // closed already
                }
                assertEquals(0, outsider.readUntilClosed().length);
            }
            String warn = log.await(Duration.ofSeconds(10), "WARN", "closing the connection from 127.0.0.2");
            assertTrue(warn.contains("not in the channel allow list 127.0.0.1/32"), warn);
            assertNull(relay.ledger.row(refused));

            try (Channel insider = Channel.openFrom("127.0.0.1", relay.port)) {
                assertEquals("0000", Telegram.rspCode(insider.send(transfer(newGuid()))));
            }
            assertEquals(1, coreView.calls());
        }
    }

    @Test
    void theAllowListAppliesBeforeTls() throws Exception {
        try (RelayUnderTest relay = relay().mutualTls().with("relay.channel.allow", "10.0.0.0/8, 127.0.0.1").start()) {
            try (Channel outsider = Channel.openFrom("127.0.0.2", relay.port)) {
                // closed before the handshake: not a byte of TLS comes back, not even an alert
                assertEquals(0, outsider.readUntilClosed().length);
            }
            log.await(Duration.ofSeconds(10), "WARN", "closing the connection from 127.0.0.2", "allow list 10.0.0.0/8,127.0.0.1");
            try (Channel channel = Channel.openTls(relay.port, TestCertificates.client(certificates.mob1))) {
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
            }
        }
        assertTrue(log.lines().stream().noneMatch(l -> l.contains("TLS handshake failed")), log.lines().toString());
    }

    @Test
    void aWrongKeystorePasswordStopsTheStartNamingTheFileNotThePassword() {
        Exception e = assertThrows(Exception.class, () -> relay()
                .environment(Map.of("RELAY_TLS_KEYSTORE_PASSWORD", "not-the-password"))
                .with("relay.tls.keystore", certificates.relay.toString()).start().close());
        String message = Relay.rootMessage(e);
        assertEquals("cannot open the TLS keystore (--tls-keystore, relay.tls.keystore) " + certificates.relay
                + " as PKCS12: keystore password was incorrect", message);
    }

    @Test
    void tlsSettingsThatCannotWorkStopTheStartWithTheReason() {
        assertEquals("--tls-keystore needs its password in the environment variable RELAY_TLS_KEYSTORE_PASSWORD",
                Relay.rootMessage(assertThrows(Exception.class, () -> relay()
                        .with("relay.tls.keystore", certificates.relay.toString()).start().close())));
        assertEquals("a TLS truststore (--tls-truststore, relay.tls.truststore) needs a keystore (--tls-keystore, relay.tls.keystore): "
                + "mutual TLS is TLS with client certificates",
                Relay.rootMessage(assertThrows(Exception.class, () -> relay().environment(TestCertificates.passwords())
                        .with("relay.tls.truststore", certificates.trust.toString()).start().close())));
        assertEquals("cannot open the TLS keystore (--tls-keystore, relay.tls.keystore): no file " + dir.resolve("none.p12"),
                Relay.rootMessage(assertThrows(Exception.class, () -> relay().environment(TestCertificates.passwords())
                        .with("relay.tls.keystore", dir.resolve("none.p12").toString()).start().close())));
        // the CA's own keystore holds its key, not a certificate entry to trust
        Path caKeys = certificates.dir.resolve("channels-ca.p12");
        assertEquals("the TLS truststore " + caKeys + " (--tls-truststore, relay.tls.truststore) holds no CA certificate",
                Relay.rootMessage(assertThrows(Exception.class, () -> relay().environment(TestCertificates.passwords())
                        .with("relay.tls.keystore", certificates.relay.toString())
                        .with("relay.tls.truststore", caKeys.toString()).start().close())));
        assertEquals("'10.0.0.0/33' in --channel-allow (relay.channel.allow) is not a CIDR such as 10.1.0.0/16 or 192.168.7.12/32",
                Relay.rootMessage(assertThrows(Exception.class, () -> relay().with("relay.channel.allow", "10.0.0.0/33").start().close())));
    }
}
