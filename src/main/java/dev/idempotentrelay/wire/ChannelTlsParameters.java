package dev.idempotentrelay.wire;

import dev.idempotentrelay.RelaySecrets;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import java.util.List;
import org.apache.camel.support.jsse.ClientAuthentication;
import org.apache.camel.support.jsse.KeyManagersParameters;
import org.apache.camel.support.jsse.KeyStoreParameters;
import org.apache.camel.support.jsse.SSLContextParameters;
import org.apache.camel.support.jsse.SSLContextServerParameters;
import org.apache.camel.support.jsse.SecureSocketProtocolsParameters;
import org.apache.camel.support.jsse.TrustManagersParameters;

/**
 * The channel port's TLS as Camel's {@link SSLContextParameters}, which camel-netty turns into the SSL handler at the
 * head of each connection's pipeline (routes/channel-path.camel.yaml: {@code ssl}, {@code sslContextParameters},
 * {@code needClientAuth} of channel-listener). TLS 1.3 and 1.2 only. The keystore (relay.tls.keystore) holds the
 * port's certificate and key; the truststore (relay.tls.truststore), when set, the CA certificates that sign the
 * channels' certificates, and every connection must then present one (mutual TLS).
 *
 * <p>Both PKCS12 files are opened here, at start, with their passwords from the environment ({@link RelaySecrets}), so
 * that a wrong path or password stops the start with one line naming the file, never the password. The loaded stores
 * are handed to Camel as they are. Without a keystore the parameters are empty and never read: the port is plain TCP.
 */
public final class ChannelTlsParameters {

    /** The only TLS versions the channel port speaks (SPEC section 8). */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private ChannelTlsParameters() {
    }

    /**
     * The parameters for a keystore and an optional truststore (empty or null: none).
     *
     * @throws IllegalArgumentException naming the file and what is wrong with it, without a cause: its message is the
     *         one line a user sees
     */
    public static SSLContextParameters of(String keystore, String truststore, RelaySecrets secrets) {
        boolean tls = keystore != null && !keystore.isBlank();
        boolean mutual = truststore != null && !truststore.isBlank();
        SSLContextParameters parameters = new SSLContextParameters();
        if (!tls) {
            if (mutual) {
                throw new IllegalArgumentException("a TLS truststore (--tls-truststore, relay.tls.truststore) needs a keystore "
                        + "(--tls-keystore, relay.tls.keystore): mutual TLS is TLS with client certificates");
            }
            return parameters;
        }
        String keystorePassword = password(secrets.keystorePassword(), RelaySecrets.KEYSTORE_PASSWORD, "--tls-keystore");
        KeyStore keys = load(keystore, keystorePassword, "keystore (--tls-keystore, relay.tls.keystore)");
        if (!holdsKey(keys)) {
            throw new IllegalArgumentException("the TLS keystore " + keystore + " (--tls-keystore, relay.tls.keystore) holds no private key");
        }
        KeyStoreParameters keyStore = new KeyStoreParameters();
        keyStore.setKeyStore(keys);
        KeyManagersParameters keyManagers = new KeyManagersParameters();
        keyManagers.setKeyStore(keyStore);
        keyManagers.setKeyPassword(keystorePassword);
        parameters.setKeyManagers(keyManagers);

        SecureSocketProtocolsParameters protocols = new SecureSocketProtocolsParameters();
        protocols.setSecureSocketProtocol(PROTOCOLS);
        parameters.setSecureSocketProtocols(protocols);

        if (mutual) {
            String truststorePassword = password(secrets.truststorePassword(), RelaySecrets.TRUSTSTORE_PASSWORD, "--tls-truststore");
            KeyStore cas = load(truststore, truststorePassword, "truststore (--tls-truststore, relay.tls.truststore)");
            if (!holdsCertificate(cas)) {
                throw new IllegalArgumentException("the TLS truststore " + truststore
                        + " (--tls-truststore, relay.tls.truststore) holds no CA certificate");
            }
            KeyStoreParameters trustStore = new KeyStoreParameters();
            trustStore.setKeyStore(cas);
            TrustManagersParameters trustManagers = new TrustManagersParameters();
            trustManagers.setKeyStore(trustStore);
            parameters.setTrustManagers(trustManagers);
            SSLContextServerParameters server = new SSLContextServerParameters();
            server.setClientAuthentication(ClientAuthentication.REQUIRE.name());
            parameters.setServerParameters(server);
        }
        return parameters;
    }

    private static String password(String password, String variable, String flag) {
        if (password == null) {
            throw new IllegalArgumentException(flag + " needs its password in the environment variable " + variable);
        }
        // Camel reads key passwords through its property placeholders: {{ would be taken for one
        if (password.contains("{{")) {
            throw new IllegalArgumentException("the password in " + variable + " holds '{{', which Camel would read as a "
                    + "property placeholder: choose one without it");
        }
        return password;
    }

    private static KeyStore load(String file, String password, String what) {
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            return store;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot open the TLS " + what + ": no file " + file);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            // the JDK says "keystore password was incorrect" for a wrong password; never the password itself
            throw new IllegalArgumentException("cannot open the TLS " + what + " " + file + " as PKCS12: " + e.getMessage());
        }
    }

    private static boolean holdsKey(KeyStore store) {
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    return true;
                }
            }
            return false;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static boolean holdsCertificate(KeyStore store) {
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isCertificateEntry(alias)) {
                    return true;
                }
            }
            return false;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
