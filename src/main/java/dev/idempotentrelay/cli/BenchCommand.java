package dev.idempotentrelay.cli;

import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;

/**
 * {@code bench}: C persistent channel connections send transfers back to back for S seconds, new GUIDs
 * and a share R of resends of GUIDs they sent before; a progress line each second, then throughput,
 * latency percentiles and the count of each reply code.
 *
 * <p>With {@code --warmup W} the connections first send for W seconds that are left out of the summary:
 * a reply counts only when its request was sent after the warm-up, and throughput is over the measured
 * seconds alone. On a machine that runs the relay too, the bench's own JVM compiles its code in its first
 * seconds and takes CPU from the relay; the warm-up keeps that out of the figures.
 *
 * <p>One thread drives all connections through a selector on non-blocking channels: each connection has
 * one request outstanding and sends its next as soon as the reply to the last has fully arrived. All
 * connections are opened before the clock starts; at the end no new requests are sent and the bench
 * waits for the replies outstanding, at most 60 s more.
 *
 * <p>With {@code --tls-truststore} / {@code --tls-keystore} (TLS, mutual TLS), {@code --blocking} or
 * {@code --reconnect} each connection is a thread of its own on a blocking socket instead ({@link BlockingBench}):
 * the JDK's SSLSocket, not an SSLEngine under the selector. {@code --reconnect} opens a new connection for every
 * transfer (connect, handshake, one transfer, close): the cost of a connection, with TLS of a full handshake.
 */
final class BenchCommand {

    static final long SECOND = 1_000_000_000L;
    static final int CONNECT_TIMEOUT_MS = 5_000;
    /** How long after the end the bench waits for the replies still outstanding. */
    static final long GRACE_NANOS = 60 * SECOND;

    private BenchCommand() {
    }

    static int run(String[] args) throws UsageException {
        Flags flags = Flags.parse("bench", args, 1, Set.of("host", "port", "connections", "duration", "warmup", "resend-ratio",
                "channel", "tls-truststore", "tls-keystore"), Set.of("blocking", "reconnect"));
        String host = flags.get("host", "localhost");
        int port = (int) flags.number("bench", "port", 9100, 1);
        int connections = (int) flags.number("bench", "connections", 8, 1);
        long durationS = flags.number("bench", "duration", 10, 1);
        long warmupS = flags.number("bench", "warmup", 0, 0);
        double resendRatio;
        try {
            resendRatio = Double.parseDouble(flags.get("resend-ratio", "0"));
        } catch (NumberFormatException e) {
            resendRatio = -1;
        }
        if (resendRatio < 0 || resendRatio > 1) {
            throw new UsageException("bench: --resend-ratio must be a number from 0 to 1, not '" + flags.get("resend-ratio", "") + "'");
        }

        String channelId = flags.get("channel", "BNCH");
        if (!channelId.matches("[0-9A-Za-z]{1,4}")) {
            throw new UsageException("bench: --channel must be 1 to 4 letters or digits, not '" + channelId + "'");
        }
        ChannelTlsClient tls = ChannelTlsClient.of("bench", flags);
        if (tls != null || flags.has("blocking") || flags.has("reconnect")) {
            return BlockingBench.run(host, port, connections, warmupS, durationS, resendRatio, channelId, tls, flags.has("reconnect"));
        }
        Bench bench;
        try {
            bench = Bench.connect(new InetSocketAddress(host, port), connections, resendRatio, channelId);
        } catch (IOException e) {
            ErrorLine.print("bench: " + e.getMessage());
            return 1;
        }
        long start = System.nanoTime();
        String failure;
        try (bench) {
            bench.drive(start, warmupS, durationS);
            failure = bench.failure();
        } catch (IOException e) {
            failure = "selector: " + e.getMessage();
        }
        double elapsedS = Math.max(0, System.nanoTime() - bench.measuredFrom()) / 1e9;
        bench.printSummary(warmupS, elapsedS);
        if (failure != null) {
            ErrorLine.print("bench: " + failure);
            return 1;
        }
        return 0;
    }

    /** The connections, the selector that drives them and what their replies added up to. */
    private static final class Bench implements AutoCloseable {
        private final Selector selector;
        private final double resendRatio;
        private final List<Connection> connections = new ArrayList<>();
        private final Map<String, Long> codes = new TreeMap<>();
        private long[] latencies = new long[1 << 16];
        private int replies;
        /** Every reply, counted ones and those to requests sent during the warm-up, for the progress lines. */
        private long received;
        private int open;
        private long measuredFrom;
        private long end;

        private final String channelId;

        private Bench(Selector selector, double resendRatio, String channelId) {
            this.selector = selector;
            this.resendRatio = resendRatio;
            this.channelId = channelId;
        }

        /** Opens all connections, or none when one cannot be opened. */
        static Bench connect(InetSocketAddress address, int count, double resendRatio, String channelId) throws IOException {
            Bench bench = new Bench(Selector.open(), resendRatio, channelId);
            try {
                for (int i = 0; i < count; i++) {
                    bench.connect(address, i);
                }
            } catch (IOException e) {
                bench.close();
                throw e;
            }
            return bench;
        }

        private void connect(InetSocketAddress address, int index) throws IOException {
            String name = "bench-" + index;
            SocketChannel channel = SocketChannel.open();
            try {
                if (address.isUnresolved()) {
                    throw new UnknownHostException(address.getHostString());
                }
                channel.socket().connect(address, CONNECT_TIMEOUT_MS);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
            } catch (IOException e) {
                channel.close();
                throw new IOException("connection " + name + ": " + e.getMessage(), e);
            }
            Connection connection = new Connection(name, channel, new SplittableRandom(index));
            connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
            connections.add(connection);
            open++;
        }

        /**
         * Sends until {@code warmupS + durationS} seconds after {@code start}, printing a progress line each
         * second, then waits for the replies still outstanding. Only the replies to requests sent after the
         * warm-up are counted.
         */
        void drive(long start, long warmupS, long durationS) throws IOException {
            measuredFrom = start + warmupS * SECOND;
            end = measuredFrom + durationS * SECOND;
            for (Connection connection : connections) {
                guarded(connection, () -> send(connection));
            }
            Progress progress = new Progress(start, warmupS, warmupS + durationS);
            while (true) {
                long now = System.nanoTime();
                // the progress lines come each second for the whole run, even once every connection failed
                progress.printDue(now, received);
                if (open == 0 && progress.finished()) {
                    return;
                }
                if (now - end >= GRACE_NANOS) {
                    abandonOutstanding();
                    return;
                }
                long wake = Math.min(progress.next(), end + GRACE_NANOS);
                selector.select(this::handle, Math.max(1, (wake - now + 999_999) / 1_000_000));
            }
        }

        private void handle(SelectionKey key) {
            Connection connection = (Connection) key.attachment();
            guarded(connection, () -> {
                // writable only while a request did not fit the socket at once
                if (key.isWritable()) {
                    flush(connection);
                }
                if (key.isReadable()) {
                    receive(connection);
                }
            });
        }

        private void send(Connection connection) throws IOException {
            connection.out = ByteBuffer.wrap(connection.nextFrame(resendRatio, channelId));
            connection.sentAt = System.nanoTime();
            flush(connection);
        }

        /** Writes what the socket takes of the request; the rest when the socket is writable again. */
        private void flush(Connection connection) throws IOException {
            connection.channel.write(connection.out);
            connection.key.interestOps(connection.out.hasRemaining()
                    ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        private void receive(Connection connection) throws IOException {
            if (connection.channel.read(connection.in) < 0) {
                if (connection.in.position() > 0) {
                    throw new IOException("connection closed inside a frame");
                }
                fail(connection, "the relay closed a connection");
                return;
            }
            byte[] reply = connection.takeReply();
            if (reply != null) {
                long now = System.nanoTime();
                received++;
                if (connection.sentAt - measuredFrom >= 0) {
                    record(now - connection.sentAt, Telegram.rspCode(reply));
                }
                if (now < end) {
                    send(connection);
                } else {
                    close(connection);
                }
            }
        }

        private void record(long latency, String code) {
            if (replies == latencies.length) {
                latencies = Arrays.copyOf(latencies, replies * 2);
            }
            latencies[replies++] = latency;
            codes.merge(code, 1L, Long::sum);
        }

        private void abandonOutstanding() {
            for (Connection connection : connections) {
                if (connection.channel.isOpen()) {
                    fail(connection, "connection " + connection.name + ": no reply " + GRACE_NANOS / SECOND + " s after the end");
                }
            }
        }

        private void guarded(Connection connection, IoAction action) {
            try {
                action.run();
            } catch (IOException e) {
                fail(connection, "connection " + connection.name + ": " + e.getMessage());
            }
        }

        private void fail(Connection connection, String message) {
            connection.failure = message;
            close(connection);
        }

        private void close(Connection connection) {
            if (connection.channel.isOpen()) {
                open--;
                closeQuietly(connection.channel);
            }
        }

        /** The failure of the first connection, in the order they were opened, that failed; or null. */
        String failure() {
            return connections.stream().map(c -> c.failure).filter(Objects::nonNull).findFirst().orElse(null);
        }

        /** When the measured seconds began: the end of the warm-up. */
        long measuredFrom() {
            return measuredFrom;
        }

        void printSummary(long warmupS, double elapsedS) {
            BenchCommand.printSummary(connections.size() + "", warmupS, elapsedS, resendRatio, Arrays.copyOf(latencies, replies), codes);
        }

        @Override
        public void close() {
            for (Connection connection : connections) {
                close(connection);
            }
            closeQuietly(selector);
        }

        private static void closeQuietly(AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // the bench is over for this connection either way
            }
        }
    }

    /** The summary of a run: throughput, latency percentiles and the count of each reply code. */
    static void printSummary(String connections, long warmupS, double elapsedS, double resendRatio, long[] latencies,
            Map<String, Long> codes) {
        long[] all = latencies.clone();
        Arrays.sort(all);
        System.out.printf("connections %s, duration %.1f s%s, resend ratio %.2f%n", connections, elapsedS,
                warmupS > 0 ? " after a warm-up of " + warmupS + " s" : "", resendRatio);
        System.out.printf("throughput  %.0f replies/s (%d replies)%n", elapsedS > 0 ? all.length / elapsedS : 0, all.length);
        if (all.length > 0) {
            System.out.printf("latency ms  p50 %.2f  p95 %.2f  p99 %.2f  max %.2f%n",
                    ms(all, 0.50), ms(all, 0.95), ms(all, 0.99), all[all.length - 1] / 1e6);
        }
        System.out.println("codes       " + codes);
    }

    private static double ms(long[] sorted, double quantile) {
        int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }

    /** An I/O step on one connection; its failure ends that connection only. */
    @FunctionalInterface
    private interface IoAction {
        void run() throws IOException;
    }

    /** The progress line due at each whole second of the run; the warm-up's lines say so. */
    static final class Progress {
        private final long start;
        private final long warmupS;
        private final long durationS;
        private int second = 1;
        private long last;

        Progress(long start, long warmupS, long durationS) {
            this.start = start;
            this.warmupS = warmupS;
            this.durationS = durationS;
        }

        /** When the next line is due, or never once all are printed. */
        long next() {
            return finished() ? Long.MAX_VALUE : start + second * SECOND;
        }

        boolean finished() {
            return second > durationS;
        }

        void printDue(long now, long replies) {
            while (!finished() && now - next() >= 0) {
                System.out.printf("%3ds  %8d replies  %7d/s%s%n", second, replies, replies - last, second <= warmupS ? "  (warm-up)" : "");
                last = replies;
                second++;
            }
        }
    }

    /** The frame of a new transfer of one minor unit for a channel, with a GUID of its own. */
    static byte[] newTransferFrame(String channel) {
        String guid = UUID.randomUUID().toString().replace("-", "");
        return Frames.frame(Telegram.transferRequest(guid, channel, "1002003004005006", "2003004005006007", 1, "bench"));
    }

    /** One channel connection and its request in flight. */
    private static final class Connection {
        final String name;
        final SocketChannel channel;
        final SplittableRandom random;
        /** The frames this connection sent, for resends. */
        final List<byte[]> sent = new ArrayList<>();
        /** The reply arriving: never more than one frame is outstanding. */
        final ByteBuffer in = ByteBuffer.allocate(Frames.PREFIX_LENGTH + Frames.MAX_LENGTH);
        SelectionKey key;
        /** What is left to write of the request in flight. */
        ByteBuffer out;
        long sentAt;
        String failure;

        Connection(String name, SocketChannel channel, SplittableRandom random) {
            this.name = name;
            this.channel = channel;
            this.random = random;
        }

        /** A resend of a frame sent before with probability {@code resendRatio}, else a new transfer. */
        byte[] nextFrame(double resendRatio, String channelId) {
            if (!sent.isEmpty() && random.nextDouble() < resendRatio) {
                return sent.get(random.nextInt(sent.size()));
            }
            byte[] frame = newTransferFrame(channelId);
            sent.add(frame);
            return frame;
        }

        /** The reply without its prefix once it has fully arrived, else null. */
        byte[] takeReply() throws IOException {
            if (in.position() < Frames.PREFIX_LENGTH) {
                return null;
            }
            int frameLength = Frames.PREFIX_LENGTH + Frames.declaredLength(in.array(), 0);
            if (in.position() < frameLength) {
                return null;
            }
            byte[] reply = Arrays.copyOfRange(in.array(), Frames.PREFIX_LENGTH, frameLength);
            in.flip().position(frameLength);
            in.compact();
            return reply;
        }
    }
}
