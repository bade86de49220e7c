package dev.idempotentrelay.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * Certificates made for the tests with the JDK's keytool, as the example of docs/security.md makes them: a CA of the channels
 * that signs the relay's certificate (CN=localhost, for localhost and 127.0.0.1) and the channels' certificates
 * (CN=MOB1, and CN=1 to try a channel id that is a number), a truststore holding that CA's certificate, and a second
 * CA with its own CN=MOB1 certificate, which the relay must not trust. Made once per JVM into a temporary folder
 * (deleted at exit), every file a PKCS12 with {@link #PASSWORD}, given to keytool through its environment.
 */
public final class TestCertificates {

    /** The password of every file, as the tests put it in RELAY_TLS_KEYSTORE_PASSWORD and RELAY_TLS_TRUSTSTORE_PASSWORD. */
    public static final String PASSWORD = "test-store-secret-3f9a";
    private static final String PASSWORD_VARIABLE = "TEST_STORE_PASSWORD";
    private static TestCertificates made;

    public final Path dir;
    /** The relay's certificate and key. */
    public final Path relay;
    /** The channels' CA certificate: the relay's truststore, and the clients' to trust the relay. */
    public final Path trust;
    /** Channel MOB1's certificate and key, signed by the channels' CA. */
    public final Path mob1;
    /** A channel whose certificate's CN is 1. */
    public final Path one;
    /** A CN=MOB1 certificate signed by another CA. */
    public final Path intruder;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.relay = dir.resolve("relay.p12");
        this.trust = dir.resolve("channels-ca-trust.p12");
        this.mob1 = dir.resolve("mob1.p12");
        this.one = dir.resolve("one.p12");
        this.intruder = dir.resolve("intruder.p12");
    }

    /** The certificates, made on the first call. */
    public static synchronized TestCertificates get() {
        if (made == null) {
            try {
                Path dir = Files.createTempDirectory("relay-test-tls");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                TestCertificates certificates = new TestCertificates(dir);
                certificates.make();
                made = certificates;
            } catch (Exception e) {
                throw new IllegalStateException("cannot make the test certificates: " + e.getMessage(), e);
            }
        }
        return made;
    }

    /** The environment a relay or a send needs for these files: both password variables. */
    public static Map<String, String> passwords() {
        return Map.of("RELAY_TLS_KEYSTORE_PASSWORD", PASSWORD, "RELAY_TLS_TRUSTSTORE_PASSWORD", PASSWORD);
    }

    private void make() throws Exception {
        // two independent chains, side by side: keytool is a JVM start each time
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> unchecked(() -> {
            ca("other-ca", "CN=Some Other CA");
            signed("other-ca", intruder, "CN=MOB1", "clientAuth", null);
        }));
        ca("channels-ca", "CN=Relay Test Channels CA");
        keytool("-importcert", "-alias", "channels-ca", "-file", dir.resolve("channels-ca.pem").toString(), "-keystore", trust.toString(), "-noprompt");
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> unchecked(() ->
                signed("channels-ca", relay, "CN=localhost", "serverAuth", "SAN=dns:localhost,ip:127.0.0.1")));
        CompletableFuture<Void> numeric = CompletableFuture.runAsync(() -> unchecked(() ->
                signed("channels-ca", one, "CN=1", "clientAuth", null)));
        signed("channels-ca", mob1, "CN=MOB1", "clientAuth", null);
        CompletableFuture.allOf(other, server, numeric).get(5, TimeUnit.MINUTES);
    }

    /** A CA: its key pair in NAME.p12, its certificate in NAME.pem. */
    private void ca(String name, String dname) throws Exception {
        Path store = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname, "-ext", "bc:c",
                "-validity", "30", "-keystore", store.toString());
        keytool("-exportcert", "-alias", name, "-rfc", "-keystore", store.toString(), "-file", dir.resolve(name + ".pem").toString());
    }

    /** A key pair in {@code store}, its certificate signed by CA {@code ca}, the chain installed in the store. */
    private void signed(String ca, Path store, String dname, String usage, String san) throws Exception {
        String name = store.getFileName().toString().replace(".p12", "");
        Path csr = dir.resolve(name + ".csr");
        Path pem = dir.resolve(name + ".pem");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname, "-validity", "30",
                "-keystore", store.toString());
        keytool("-certreq", "-alias", name, "-keystore", store.toString(), "-file", csr.toString());
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", ca, "-keystore", dir.resolve(ca + ".p12").toString(),
                "-infile", csr.toString(), "-outfile", pem.toString(), "-rfc", "-validity", "30", "-ext", "KU=digitalSignature",
                "-ext", "EKU=" + usage));
        if (san != null) {
            gencert.addAll(List.of("-ext", san));
        }
        keytool(gencert.toArray(new String[0]));
        keytool("-importcert", "-alias", ca, "-file", dir.resolve(ca + ".pem").toString(), "-keystore", store.toString(), "-noprompt");
        keytool("-importcert", "-alias", name, "-file", pem.toString(), "-keystore", store.toString());
    }

    private void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass:env", PASSWORD_VARIABLE));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(PASSWORD_VARIABLE, PASSWORD);
        Process process = builder.start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }

    /** A client's TLS: trusts the channels' CA; presents the certificate in {@code keystore} unless it is null. */
    public static SSLContext client(Path keystore) throws Exception {
        return client(keystore, get().trust);
    }

    /** A client's TLS that trusts the CAs in {@code truststore}. */
    public static SSLContext client(Path keystore, Path truststore) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        KeyManagerFactory keys = null;
        if (keystore != null) {
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(load(keystore), PASSWORD.toCharArray());
        }
        context.init(keys == null ? null : keys.getKeyManagers(), trust(truststore), null);
        return context;
    }

    /**
     * A client that presents the certificate in {@code keystore} whichever CAs the relay names in its request. The
     * JDK's own key manager sends none whose issuer the relay did not name, so without this a certificate from another
     * CA would never reach the relay's check.
     */
    public static SSLContext clientPresentingAnyway(Path keystore) throws Exception {
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(load(keystore), PASSWORD.toCharArray());
        X509KeyManager keys = (X509KeyManager) factory.getKeyManagers()[0];
        String alias = keystore.getFileName().toString().replace(".p12", "");
        X509ExtendedKeyManager always = new X509ExtendedKeyManager() {
            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return alias;
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return alias;
            }

            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {alias};
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String name) {
                return keys.getCertificateChain(name);
            }

            @Override
            public PrivateKey getPrivateKey(String name) {
                return keys.getPrivateKey(name);
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {always}, trust(get().trust), null);
        return context;
    }

    private static TrustManager[] trust(Path truststore) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load(truststore));
        return trust.getTrustManagers();
    }

    private static KeyStore load(Path file) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static void unchecked(Step step) {
        try {
            step.run();
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}
