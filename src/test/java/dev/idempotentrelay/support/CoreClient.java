package dev.idempotentrelay.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads the core's outside view over real HTTP: {@code /_stats} and the inquiry API. */
public final class CoreClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String baseUrl;

    public CoreClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** POSTs the core received in all. */
    public long calls() throws IOException, InterruptedException {
        return stats().get("calls").asLong();
    }

    /** POSTs the core received for one GUID. */
    public long calls(String guid) throws IOException, InterruptedException {
        JsonNode n = stats().get("by_guid").get(guid);
        return n == null ? 0 : n.asLong();
    }

    /** POSTs the core received, by GUID. */
    public java.util.Map<String, Long> callsByGuid() throws IOException, InterruptedException {
        java.util.Map<String, Long> calls = new java.util.HashMap<>();
        stats().get("by_guid").fields().forEachRemaining(e -> calls.put(e.getKey(), e.getValue().asLong()));
        return calls;
    }

    /** The status of {@code GET /v1/transfers/{guid}}: 200 once the core applied it, 404 before. */
    public int inquiryStatus(String guid) throws IOException, InterruptedException {
        return get("/v1/transfers/" + guid).statusCode();
    }

    private JsonNode stats() throws IOException, InterruptedException {
        return JSON.readTree(get("/_stats").body());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(5)).GET().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
