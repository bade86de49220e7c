package dev.idempotentrelay.support;

import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/** A channel's TCP connection to the relay: framed requests out, framed replies in. */
public final class Channel implements AutoCloseable {

    private final Socket socket;

    private Channel(Socket socket) {
        this.socket = socket;
    }

    public static Channel open(int port) throws IOException {
        return new Channel(connect(null, port));
    }

    /** A plain TCP connection from the given local address (such as 127.0.0.2) to the relay on 127.0.0.1. */
    public static Channel openFrom(String localAddress, int port) throws IOException {
        return new Channel(connect(localAddress, port));
    }

    /**
     * A TLS connection, its handshake done, as {@code send} makes it: TLS 1.3 or 1.2 (or {@code protocols}), the relay's
     * certificate checked for the name localhost.
     */
    public static Channel openTls(int port, SSLContext tls, String... protocols) throws IOException {
        Socket plain = connect(null, port);
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, "localhost", port, true);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setProtocols(protocols.length > 0 ? protocols : new String[] {"TLSv1.3", "TLSv1.2"});
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(parameters);
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return new Channel(socket);
    }

    private static Socket connect(String localAddress, int port) throws IOException {
        Socket socket = new Socket();
        try {
            if (localAddress != null) {
                socket.bind(new InetSocketAddress(localAddress, 0));
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(30_000);
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }

    /** The TLS session of a connection opened with {@link #openTls}. */
    public SSLSession tlsSession() {
        return ((SSLSocket) socket).getSession();
    }

    /** Sends one request and waits for its reply. */
    public byte[] send(byte[] request) throws IOException {
        write(request);
        byte[] reply = Frames.read(socket.getInputStream());
        if (reply == null) {
            throw new IOException("the relay closed the connection without a reply");
        }
        return reply;
    }

    public void write(byte[] request) throws IOException {
        Frames.write(socket.getOutputStream(), request);
    }

    /** Writes raw bytes, framing included or not. */
    public void writeRaw(byte[] bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    public java.io.InputStream input() throws IOException {
        return socket.getInputStream();
    }

    /** True when the relay closed the connection: the next read ends the stream. */
    public boolean closedByRelay() throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketException e) {
            return true; // reset by the peer: closed as well
        }
    }

    /**
     * Everything the relay sent until it closed the connection (or reset it): with TLS, the alert that ended the
     * handshake raises an SSLException, which counts as closed too.
     */
    public byte[] readUntilClosed() throws IOException {
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                got.write(buffer, 0, n);
            }
        } catch (SocketException | javax.net.ssl.SSLException e) {
            // reset, or the TLS alert that closed it
        }
        return got.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
