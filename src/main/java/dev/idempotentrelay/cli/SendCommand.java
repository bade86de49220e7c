package dev.idempotentrelay.cli;

import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@code send}: a channel client that sends one transfer and prints the reply's fields; over TLS with
 * {@code --tls-truststore} and/or {@code --tls-keystore} ({@link ChannelTlsClient}).
 */
final class SendCommand {

    private static final int TIMEOUT_MS = 30_000;

    private SendCommand() {
    }

    static int run(String[] args) throws UsageException {
        Flags flags = Flags.parse("send", args, 1,
                Set.of("host", "port", "guid", "from", "to", "amount", "memo", "channel", "tls-truststore", "tls-keystore"), Set.of());
        String host = flags.get("host", "localhost");
        int port = (int) flags.number("send", "port", 9100, 1);
        if (port > 65535) {
            throw new UsageException("send: --port must be at most 65535, not " + port);
        }
        byte[] request = SendFields.request(flags);
        ChannelTlsClient tls = ChannelTlsClient.of("send", flags);
        byte[] reply;
        try (Socket socket = tls == null ? plain(host, port) : tls.connect(host, port, TIMEOUT_MS)) {
            Frames.write(socket.getOutputStream(), request);
            reply = Frames.read(socket.getInputStream());
        } catch (IOException e) {
            ErrorLine.print("send: no reply from " + host + ":" + port + ": " + e.getMessage());
            return 1;
        }
        if (reply == null) {
            ErrorLine.print("send: the relay closed the connection without a reply");
            return 1;
        }
        System.out.println(describe(reply));
        return 0;
    }

    private static Socket plain(String host, int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** The reply's fields, one per line, and the raw message. */
    static String describe(byte[] reply) {
        StringBuilder out = new StringBuilder();
        out.append("rsp_code      ").append(Telegram.rspCode(reply)).append('\n');
        out.append("guid          ").append(Telegram.guid(reply)).append('\n');
        if (reply.length >= Telegram.ACCEPTED_REPLY_LENGTH) {
            out.append("core_ref      ").append(Telegram.field(reply, Telegram.CORE_REF, Telegram.CORE_REF_WIDTH)).append('\n');
            out.append("balance_after ").append(Telegram.raw(reply, Telegram.BALANCE_AFTER, Telegram.BALANCE_WIDTH)).append('\n');
            out.append("processed_at  ").append(Telegram.raw(reply, Telegram.PROCESSED_AT, Telegram.PROCESSED_AT_WIDTH)).append('\n');
        }
        out.append("reply         ").append(new String(Frames.frame(reply), StandardCharsets.US_ASCII));
        return out.toString();
    }
}
