package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.BenchCommand.CONNECT_TIMEOUT_MS;
import static dev.idempotentrelay.cli.BenchCommand.GRACE_NANOS;
import static dev.idempotentrelay.cli.BenchCommand.SECOND;

import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;

/**
 * The bench with a thread per connection on a blocking socket, plain or TLS ({@link ChannelTlsClient}): what
 * {@code bench} runs with {@code --tls-*}, {@code --blocking} or {@code --reconnect}. The same load as the selector's
 * (one request outstanding per connection, new GUIDs and a share of resends, the warm-up left out of the figures),
 * the same summary. Persistent connections are opened before the clock starts; with {@code --reconnect} each
 * transfer opens its own (connect, TLS handshake, one transfer, close), its latency counting all of that, and a TLS
 * session is never resumed: the client invalidates it on close, so that every handshake is a full one.
 */
final class BlockingBench {

    private final String host;
    private final int port;
    private final double resendRatio;
    private final String channelId;
    private final ChannelTlsClient tls;
    private final boolean reconnect;
    private final AtomicLong received = new AtomicLong();
    private long measuredFrom;
    private long end;

    private BlockingBench(String host, int port, double resendRatio, String channelId, ChannelTlsClient tls, boolean reconnect) {
        this.host = host;
        this.port = port;
        this.resendRatio = resendRatio;
        this.channelId = channelId;
        this.tls = tls;
        this.reconnect = reconnect;
    }

    static int run(String host, int port, int connections, long warmupS, long durationS, double resendRatio, String channelId,
            ChannelTlsClient tls, boolean reconnect) {
        BlockingBench bench = new BlockingBench(host, port, resendRatio, channelId, tls, reconnect);
        List<Worker> workers = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                workers.add(bench.new Worker(i, reconnect ? null : bench.open()));
            }
        } catch (IOException e) {
            workers.forEach(Worker::close);
            System.err.println("bench: connection bench-" + workers.size() + ": " + e.getMessage());
            return 1;
        }
        long start = System.nanoTime();
        bench.measuredFrom = start + warmupS * SECOND;
        bench.end = bench.measuredFrom + durationS * SECOND;
        workers.forEach(w -> w.thread.start());
        BenchCommand.Progress progress = new BenchCommand.Progress(start, warmupS, warmupS + durationS);
        while (true) {
            long now = System.nanoTime();
            progress.printDue(now, bench.received.get());
            boolean running = workers.stream().anyMatch(w -> w.thread.isAlive());
            if (!running && progress.finished()) {
                break;
            }
            if (now - bench.end >= GRACE_NANOS) {
                workers.forEach(w -> w.abandon("no reply " + GRACE_NANOS / SECOND + " s after the end"));
                break;
            }
            try {
                Thread.sleep(Math.max(1, Math.min(100, (progress.next() - now) / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        double elapsedS = Math.max(0, System.nanoTime() - bench.measuredFrom) / 1e9;
        Map<String, Long> codes = new TreeMap<>();
        long[] latencies = new long[0];
        for (Worker worker : workers) {
            worker.codes.forEach((code, n) -> codes.merge(code, n, Long::sum));
            int from = latencies.length;
            latencies = Arrays.copyOf(latencies, from + worker.replies);
            System.arraycopy(worker.latencies, 0, latencies, from, worker.replies);
        }
        String mode = (tls == null ? "plain TCP" : "TLS") + ", a thread each" + (reconnect ? ", a new connection per transfer" : "");
        BenchCommand.printSummary(connections + " (" + mode + ")", warmupS, elapsedS, resendRatio, latencies, codes);
        String failure = workers.stream().map(w -> w.failure).filter(f -> f != null).findFirst().orElse(null);
        if (failure != null) {
            System.err.println("bench: " + failure);
            return 1;
        }
        return 0;
    }

    /** A connection, its TLS handshake done; a reply may take as long as the grace after the end. */
    private Socket open() throws IOException {
        Socket socket = tls != null ? tls.connect(host, port, CONNECT_TIMEOUT_MS) : new Socket();
        try {
            if (tls == null) {
                socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
                socket.setTcpNoDelay(true);
            }
            socket.setSoTimeout((int) (GRACE_NANOS / 1_000_000));
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** One connection's thread: its socket (null between transfers with --reconnect), what it sent and measured. */
    private final class Worker {
        final String name;
        final Thread thread;
        final SplittableRandom random;
        final List<byte[]> sent = new ArrayList<>();
        final Map<String, Long> codes = new TreeMap<>();
        long[] latencies = new long[1 << 12];
        int replies;
        volatile Socket socket;
        volatile String failure;

        Worker(int index, Socket socket) {
            this.name = "bench-" + index;
            this.socket = socket;
            this.random = new SplittableRandom(index);
            this.thread = new Thread(this::loop, name);
            this.thread.setDaemon(true);
        }

        private void loop() {
            try {
                InputStream in = socket == null ? null : new BufferedInputStream(socket.getInputStream());
                while (System.nanoTime() - end < 0) {
                    byte[] frame = nextFrame();
                    long sentAt = System.nanoTime();
                    if (socket == null) {
                        socket = open();
                        in = new BufferedInputStream(socket.getInputStream());
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write(frame);
                    out.flush();
                    byte[] reply = Frames.read(in);
                    if (reply == null) {
                        throw new IOException("the relay closed a connection");
                    }
                    received.incrementAndGet();
                    if (sentAt - measuredFrom >= 0) {
                        record(System.nanoTime() - sentAt, Telegram.rspCode(reply));
                    }
                    if (reconnect) {
                        close();
                        in = null;
                    }
                }
            } catch (IOException e) {
                if (failure == null) {
                    failure = "connection " + name + ": " + e.getMessage();
                }
            } finally {
                close();
            }
        }

        private byte[] nextFrame() {
            if (!sent.isEmpty() && random.nextDouble() < resendRatio) {
                return sent.get(random.nextInt(sent.size()));
            }
            byte[] frame = BenchCommand.newTransferFrame(channelId);
            sent.add(frame);
            return frame;
        }

        private void record(long latency, String code) {
            if (replies == latencies.length) {
                latencies = Arrays.copyOf(latencies, replies * 2);
            }
            latencies[replies++] = latency;
            codes.merge(code, 1L, Long::sum);
        }

        void abandon(String why) {
            if (thread.isAlive()) {
                failure = "connection " + name + ": " + why;
                close();
            }
        }

        void close() {
            Socket s = socket;
            socket = null;
            if (s == null) {
                return;
            }
            if (s instanceof SSLSocket ssl) {
                ssl.getSession().invalidate(); // never resumed: the next connection's handshake is a full one
            }
            try {
                s.close();
            } catch (IOException e) {
                // done with it either way
            }
        }
    }
}
