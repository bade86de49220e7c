package dev.idempotentrelay.cli;

import dev.idempotentrelay.RelaySecrets;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A channel's side of the relay's TLS, for {@code send} and {@code bench} (SPEC section 8), on the JDK's own
 * SSLContext and SSLSocket: {@code --tls-truststore PATH} (PKCS12 of the CAs that sign the relay's certificate;
 * without it the JDK's default CAs) and {@code --tls-keystore PATH} (PKCS12 with the channel's certificate and key,
 * for mutual TLS), their passwords in RELAY_TLS_TRUSTSTORE_PASSWORD and RELAY_TLS_KEYSTORE_PASSWORD. TLS 1.3 or 1.2;
 * the relay's certificate must name the host connected to, as HTTPS checks it.
 */
final class ChannelTlsClient {

    static final List<String> FLAGS = List.of("tls-truststore", "tls-keystore");
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final SSLContext context;

    private ChannelTlsClient(SSLContext context) {
        this.context = context;
    }

    /** The client for the flags of {@code command}, or null when neither TLS flag is given (plain TCP). */
    static ChannelTlsClient of(String command, Flags flags) throws UsageException {
        if (!flags.has("tls-truststore") && !flags.has("tls-keystore")) {
            return null;
        }
        RelaySecrets secrets = RelaySecrets.from(System.getenv());
        try {
            KeyManagerFactory keys = null;
            if (flags.has("tls-keystore")) {
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                String password = password(command, "tls-keystore", secrets.keystorePassword(), RelaySecrets.KEYSTORE_PASSWORD);
                keys.init(load(command, "tls-keystore", flags.get("tls-keystore", ""), password), password.toCharArray());
            }
            TrustManagerFactory trust = null;
            if (flags.has("tls-truststore")) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                String password = password(command, "tls-truststore", secrets.truststorePassword(), RelaySecrets.TRUSTSTORE_PASSWORD);
                trust.init(load(command, "tls-truststore", flags.get("tls-truststore", ""), password));
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            return new ChannelTlsClient(context);
        } catch (GeneralSecurityException e) {
            throw new UsageException(command + ": cannot set up TLS: " + e.getMessage());
        }
    }

    private static String password(String command, String flag, String password, String variable) throws UsageException {
        if (password == null) {
            throw new UsageException(command + ": --" + flag + " needs its password in the environment variable " + variable);
        }
        return password;
    }

    private static KeyStore load(String command, String flag, String file, String password) throws UsageException {
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            return store;
        } catch (NoSuchFileException e) {
            throw new UsageException(command + ": --" + flag + " " + file + ": no such file");
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new UsageException(command + ": --" + flag + " " + file + " cannot be opened as PKCS12: " + e.getMessage());
        }
    }

    /** A TLS connection to the relay, its handshake done. */
    SSLSocket connect(String host, int port, int timeoutMs) throws IOException {
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), timeoutMs);
            plain.setTcpNoDelay(true);
            plain.setSoTimeout(timeoutMs);
            SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, true);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setProtocols(PROTOCOLS);
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }
}
