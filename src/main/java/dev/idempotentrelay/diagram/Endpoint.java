package dev.idempotentrelay.diagram;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an endpoint URI of a route is, for the pictures: a hand-off to another route ({@code direct:}), the ledger
 * ({@code sql:} and {@code ledger-write:} with their SQL file), the channels' listener ({@code netty:}), a timer
 * ({@code quartz:}), the admin endpoint's REST verbs ({@code rest:}), the core (an HTTP URL, or the placeholder of one),
 * or anything else, named by its scheme and path. Placeholders stay as they are written: the pictures are the same
 * drawn from the files and from the running relay.
 */
record Endpoint(Kind kind, String name, String detail) {

    enum Kind { ROUTE, LEDGER, CHANNELS, TIMER, ADMIN, CORE, OTHER }

    static Endpoint of(String uri) {
        String base = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
        Map<String, String> query = query(uri);
        String scheme = base.contains(":") ? base.substring(0, base.indexOf(':')) : "";
        switch (scheme) {
            case "direct":
                return new Endpoint(Kind.ROUTE, base.substring("direct:".length()), base);
            case "sql":
            case "ledger-write": {
                String file = base.substring(base.lastIndexOf('/') + 1).replaceFirst("\\.sql$", "");
                return new Endpoint(Kind.LEDGER, "ledger", (scheme.equals("sql") ? "read " : "write ") + file);
            }
            case "netty":
                return new Endpoint(Kind.CHANNELS, "channels", base);
            case "quartz": {
                String interval = query.get("trigger.repeatInterval");
                String every = interval == null ? "" : interval.endsWith("000")
                        ? "every " + interval.substring(0, interval.length() - 3) + " s" : "every " + interval + " ms";
                return new Endpoint(Kind.TIMER, "timer " + base.substring(base.lastIndexOf('/') + 1), every);
            }
            case "rest":
            case "platform-http":
                return new Endpoint(Kind.ADMIN, "admin endpoint", restVerb(base));
            default:
                break;
        }
        if (scheme.equals("http") || scheme.equals("https") || base.startsWith("{{")) {
            int path = base.startsWith("{{") ? base.indexOf("}}") + 2 : base.indexOf('/', base.indexOf("//") + 2);
            String core = path < 0 ? base : base.substring(0, path);
            String method = query.getOrDefault("httpMethod", "");
            return new Endpoint(Kind.CORE, "core " + core, (method + " " + (path < 0 ? "/" : base.substring(path))).strip());
        }
        return new Endpoint(Kind.OTHER, base, base);
    }

    /** {@code rest://get:/ledger/%7Bguid%7D} as {@code GET /ledger/{guid}}. */
    private static String restVerb(String base) {
        String verb = base.replaceFirst("^rest:(//)?", "");
        int colon = verb.indexOf(':');
        String path = URLDecoder.decode(verb.substring(colon + 1), StandardCharsets.UTF_8);
        return colon < 0 ? verb : verb.substring(0, colon).toUpperCase(java.util.Locale.ROOT) + " " + path;
    }

    private static Map<String, String> query(String uri) {
        Map<String, String> query = new LinkedHashMap<>();
        int q = uri.indexOf('?');
        if (q < 0) {
            return query;
        }
        for (String pair : uri.substring(q + 1).split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                query.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return query;
    }
}
