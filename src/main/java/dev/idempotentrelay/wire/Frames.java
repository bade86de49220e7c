package dev.idempotentrelay.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** The 4-ASCII-digit length framing of the channel protocol, for the relay's codec and for clients. */
public final class Frames {

    public static final int PREFIX_LENGTH = 4;
    public static final int MAX_LENGTH = 9999;

    private Frames() {
    }

    /** The prefix for a message of the given length, e.g. {@code 0112}. */
    public static byte[] prefix(int length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("message length " + length + " does not fit a 4-digit prefix");
        }
        return new byte[] {(byte) ('0' + length / 1000), (byte) ('0' + length / 100 % 10),
            (byte) ('0' + length / 10 % 10), (byte) ('0' + length % 10)};
    }

    /** The declared length at {@code index}, or -1 when the four bytes there are not all ASCII digits. */
    static int parsePrefix(ByteBuf buf, int index) {
        int length = 0;
        for (int i = 0; i < PREFIX_LENGTH; i++) {
            byte b = buf.getByte(index + i);
            if (b < '0' || b > '9') {
                return -1;
            }
            length = length * 10 + (b - '0');
        }
        return length;
    }

    /** Whether the first {@code count} bytes at {@code index} (fewer than a prefix) are all ASCII digits. */
    static boolean digitsSoFar(ByteBuf buf, int index, int count) {
        for (int i = 0; i < count; i++) {
            byte b = buf.getByte(index + i);
            if (b < '0' || b > '9') {
                return false;
            }
        }
        return true;
    }

    /** The message behind its prefix, as it goes on the wire. */
    public static byte[] frame(byte[] message) {
        byte[] frame = new byte[PREFIX_LENGTH + message.length];
        System.arraycopy(prefix(message.length), 0, frame, 0, PREFIX_LENGTH);
        System.arraycopy(message, 0, frame, PREFIX_LENGTH, message.length);
        return frame;
    }

    /** The length declared by the complete prefix at {@code offset}; an IOException when it is not 4 ASCII digits. */
    public static int declaredLength(byte[] bytes, int offset) throws IOException {
        int length = parsePrefix(Unpooled.wrappedBuffer(bytes), offset);
        if (length < 0) {
            throw new IOException("length prefix is not 4 digits: "
                    + new String(bytes, offset, PREFIX_LENGTH, StandardCharsets.US_ASCII));
        }
        return length;
    }

    /** Writes one framed message and flushes. */
    public static void write(OutputStream out, byte[] message) throws IOException {
        out.write(frame(message));
        out.flush();
    }

    /**
     * Reads one framed message.
     *
     * @return the message without its prefix, or null when the peer closed the connection before a frame began
     */
    public static byte[] read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        byte[] prefix = new byte[PREFIX_LENGTH];
        int first = data.read();
        if (first < 0) {
            return null;
        }
        prefix[0] = (byte) first;
        data.readFully(prefix, 1, PREFIX_LENGTH - 1);
        byte[] message = new byte[declaredLength(prefix, 0)];
        try {
            data.readFully(message);
        } catch (EOFException e) {
            throw new IOException("connection closed inside a frame", e);
        }
        return message;
    }
}
