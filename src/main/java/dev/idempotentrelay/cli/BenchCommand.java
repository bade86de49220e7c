package dev.idempotentrelay.cli;

import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code bench}: C persistent channel connections send transfers back to back for S seconds, new GUIDs
 * and a share R of resends of GUIDs they sent before; a progress line each second, then throughput,
 * latency percentiles and the count of each reply code.
 */
final class BenchCommand {

    private BenchCommand() {
    }

    static int run(String[] args) throws UsageException {
        Flags flags = Flags.parse("bench", args, 1, Set.of("host", "port", "connections", "duration", "resend-ratio"), Set.of());
        String host = flags.get("host", "localhost");
        int port = (int) flags.number("bench", "port", 9100, 1);
        int connections = (int) flags.number("bench", "connections", 8, 1);
        long durationS = flags.number("bench", "duration", 10, 1);
        double resendRatio;
        try {
            resendRatio = Double.parseDouble(flags.get("resend-ratio", "0"));
        } catch (NumberFormatException e) {
            resendRatio = -1;
        }
        if (resendRatio < 0 || resendRatio > 1) {
            throw new UsageException("bench: --resend-ratio must be a number from 0 to 1, not '" + flags.get("resend-ratio", "") + "'");
        }

        Map<String, LongAdder> codes = new ConcurrentHashMap<>();
        AtomicLong done = new AtomicLong();
        List<Worker> workers = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + durationS * 1_000_000_000L;
        for (int i = 0; i < connections; i++) {
            Worker worker = new Worker(host, port, end, resendRatio, i, codes, done);
            workers.add(worker);
            worker.start();
        }
        long last = 0;
        for (int second = 1; second <= durationS; second++) {
            sleepUntil(start + second * 1_000_000_000L);
            long now = done.get();
            System.out.printf("%3ds  %8d replies  %7d/s%n", second, now, now - last);
            last = now;
        }
        List<long[]> latencies = new ArrayList<>();
        String failure = null;
        for (Worker worker : workers) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            latencies.add(worker.latencies());
            if (worker.failure != null && failure == null) {
                failure = worker.failure;
            }
        }
        double elapsedS = (System.nanoTime() - start) / 1e9;
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("connections %d, duration %.1f s, resend ratio %.2f%n", connections, elapsedS, resendRatio);
        System.out.printf("throughput  %.0f replies/s (%d replies)%n", all.length / elapsedS, all.length);
        if (all.length > 0) {
            System.out.printf("latency ms  p50 %.2f  p95 %.2f  p99 %.2f  max %.2f%n",
                    ms(all, 0.50), ms(all, 0.95), ms(all, 0.99), all[all.length - 1] / 1e6);
        }
        Map<String, Long> byCode = new TreeMap<>();
        codes.forEach((code, n) -> byCode.put(code, n.sum()));
        System.out.println("codes       " + byCode);
        if (failure != null) {
            System.err.println("bench: " + failure);
            return 1;
        }
        return 0;
    }

    private static double ms(long[] sorted, double quantile) {
        int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }

    private static void sleepUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            try {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One channel connection sending back to back. */
    private static final class Worker extends Thread {
        private final String host;
        private final int port;
        private final long end;
        private final double resendRatio;
        private final Map<String, LongAdder> codes;
        private final AtomicLong done;
        private final SplittableRandom random;
        private final List<byte[]> sent = new ArrayList<>();
        private long[] latencies = new long[1 << 14];
        private int count;
        private volatile String failure;

        Worker(String host, int port, long end, double resendRatio, int index, Map<String, LongAdder> codes, AtomicLong done) {
            super("bench-" + index);
            this.host = host;
            this.port = port;
            this.end = end;
            this.resendRatio = resendRatio;
            this.codes = codes;
            this.done = done;
            this.random = new SplittableRandom(index);
        }

        @Override
        public void run() {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 5_000);
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(60_000);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                while (System.nanoTime() < end) {
                    byte[] request;
                    if (!sent.isEmpty() && random.nextDouble() < resendRatio) {
                        request = sent.get(random.nextInt(sent.size()));
                    } else {
                        String guid = UUID.randomUUID().toString().replace("-", "");
                        request = Telegram.transferRequest(guid, "BNCH", "1002003004005006", "2003004005006007", 1, "bench");
                        sent.add(request);
                    }
                    long t0 = System.nanoTime();
                    Frames.write(out, request);
                    byte[] reply = Frames.read(in);
                    long t = System.nanoTime() - t0;
                    if (reply == null) {
                        failure = "the relay closed a connection";
                        return;
                    }
                    record(t);
                    codes.computeIfAbsent(Telegram.rspCode(reply), c -> new LongAdder()).increment();
                    done.incrementAndGet();
                }
            } catch (IOException e) {
                failure = "connection " + getName() + ": " + e.getMessage();
            }
        }

        private void record(long nanos) {
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = nanos;
        }

        long[] latencies() {
            return Arrays.copyOf(latencies, count);
        }
    }
}
