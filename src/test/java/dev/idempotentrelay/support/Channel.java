package dev.idempotentrelay.support;

import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

/** A channel's TCP connection to the relay: framed requests out, framed replies in. */
public final class Channel implements AutoCloseable {

    private final Socket socket;

    private Channel(Socket socket) {
        this.socket = socket;
    }

    public static Channel open(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        return new Channel(socket);
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
