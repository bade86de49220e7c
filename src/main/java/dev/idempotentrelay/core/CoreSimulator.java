package dev.idempotentrelay.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The core account system as SPEC section 4 describes it, and on purpose not idempotent: every POST of
 * an accepted transfer debits again. Memo {@code SLOW...} waits {@code slowMs} before applying (GET
 * answers 404 until then), {@code FAIL...} answers 500 and applies nothing. Accounts open with
 * 1,000,000,000 minor units; an account starting with {@code 0000} does not exist.
 */
public class CoreSimulator implements AutoCloseable {

    public static final long OPENING_BALANCE = 1_000_000_000L;
    private static final DateTimeFormatter PROCESSED_AT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    static {
        // the JDK server keeps Nagle's algorithm on unless told otherwise: 40 ms per call
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final ObjectMapper json = new ObjectMapper();
    private final long slowMs;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "core-sim");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Long> balances = new ConcurrentHashMap<>();
    private final Map<String, String> accepted = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> postsByGuid = new ConcurrentHashMap<>();
    private final Map<String, String> traceparents = new ConcurrentHashMap<>();
    private final AtomicLong posts = new AtomicLong();
    private final AtomicLong references = new AtomicLong();
    private final Object ledgerLock = new Object();

    private CoreSimulator(int port, long slowMs) throws IOException {
        this.slowMs = slowMs;
        this.server = HttpServer.create(new InetSocketAddress(port), 256);
        server.createContext("/v1/transfers", this::transfers);
        server.createContext("/_stats", this::stats);
        // requests are handled on the server's own thread, without a hand-off; only a SLOW transfer waits on
        // a thread of its own, so that it holds up no other request
        server.setExecutor(Runnable::run);
    }

    /** Starts a simulator on {@code port} (0 picks a free one). */
    public static CoreSimulator start(int port, long slowMs) throws IOException {
        CoreSimulator simulator = new CoreSimulator(port, slowMs);
        simulator.server.start();
        return simulator;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String url() {
        return "http://localhost:" + port();
    }

    public long balance(String account) {
        return balances.getOrDefault(account, OPENING_BALANCE);
    }

    /** The W3C traceparent of the last request about {@code guid} (its POST or an inquiry), or null: a relay's trace. */
    public String traceparent(String guid) {
        return traceparents.get(guid);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void transfers(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        if ("POST".equals(method) && path.equals("/v1/transfers")) {
            post(exchange);
            return;
        }
        try (exchange) {
            if ("GET".equals(method) && path.startsWith("/v1/transfers/")) {
                String guid = path.substring("/v1/transfers/".length());
                keepTraceparent(exchange, guid);
                String answer = accepted.get(guid);
                if (answer == null) {
                    send(exchange, 404, "{\"code\":\"NOT_FOUND\",\"message\":\"no accepted transfer has that guid\"}");
                } else {
                    send(exchange, 200, answer);
                }
            } else {
                send(exchange, 405, "{\"code\":\"METHOD\",\"message\":\"not supported\"}");
            }
        }
    }

    private void keepTraceparent(HttpExchange exchange, String guid) {
        String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
        if (traceparent != null) {
            traceparents.put(guid, traceparent);
        }
    }

    /** Reads a POSTed transfer and answers it, now or, for a SLOW memo, from another thread after slowMs. */
    private void post(HttpExchange exchange) throws IOException {
        JsonNode request;
        try (InputStream in = exchange.getRequestBody()) {
            request = json.readTree(in);
        } catch (IOException e) {
            request = null;
        }
        String guid = text(request, "guid");
        posts.incrementAndGet(); // every POST that arrives counts, whether or not it is ever applied
        if (guid != null) {
            postsByGuid.computeIfAbsent(guid, g -> new AtomicLong()).incrementAndGet();
            keepTraceparent(exchange, guid);
        }
        String memo = text(request, "memo");
        if (memo != null && memo.startsWith("SLOW")) {
            JsonNode slow = request;
            executor.execute(() -> {
                try (exchange) {
                    Thread.sleep(slowMs);
                    apply(exchange, slow);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (IOException e) {
                    // the relay gave up on this call and closed the connection
                }
            });
            return;
        }
        try (exchange) {
            apply(exchange, request);
        }
    }

    private void apply(HttpExchange exchange, JsonNode request) throws IOException {
        String guid = text(request, "guid");
        String from = text(request, "from");
        String to = text(request, "to");
        String memo = text(request, "memo");
        JsonNode amountNode = request == null ? null : request.get("amount");
        if (guid == null || from == null || to == null || amountNode == null || !amountNode.canConvertToLong()) {
            send(exchange, 400, "{\"code\":\"BAD_REQUEST\",\"message\":\"guid, from, to and amount are required\"}");
            return;
        }
        long amount = amountNode.longValue();
        if (memo != null && memo.startsWith("FAIL")) {
            send(exchange, 500, "{\"code\":\"INTERNAL\",\"message\":\"simulated failure\"}");
            return;
        }
        if (from.startsWith("0000") || to.startsWith("0000")) {
            send(exchange, 422, "{\"code\":\"B202\",\"message\":\"unknown account\"}");
            return;
        }
        ObjectNode answer;
        synchronized (ledgerLock) {
            long balance = balance(from);
            if (amount <= 0 || amount > balance) {
                send(exchange, 422, "{\"code\":\"B201\",\"message\":\"insufficient funds\"}");
                return;
            }
            balances.put(from, balance - amount);
            balances.put(to, balance(to) + amount);
            answer = json.createObjectNode();
            answer.put("guid", guid);
            answer.put("core_ref", String.format("CR%014d", references.incrementAndGet()));
            answer.put("balance_after", balance - amount);
            answer.put("processed_at", ZonedDateTime.now(ZoneOffset.UTC).format(PROCESSED_AT));
            accepted.put(guid, answer.toString());
        }
        send(exchange, 200, answer.toString());
    }

    private void stats(HttpExchange exchange) throws IOException {
        try (exchange) {
            ObjectNode stats = json.createObjectNode();
            stats.put("calls", posts.get());
            ObjectNode byGuid = stats.putObject("by_guid");
            new TreeMap<>(postsByGuid).forEach((guid, n) -> byGuid.put(guid, n.get()));
            send(exchange, 200, stats.toString());
        }
    }

    private static String text(JsonNode node, String name) {
        JsonNode value = node == null ? null : node.get(name);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
