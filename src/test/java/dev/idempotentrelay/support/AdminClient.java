package dev.idempotentrelay.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Real HTTP to the relay's admin endpoint, as an operator's curl would do it. */
public final class AdminClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)(\\{[^}]*\\})? (\\S+)$");
    private final String baseUrl;

    public AdminClient(String baseUrl) {
        this(baseUrl, null);
    }

    private final String authorization;

    public AdminClient(String baseUrl, String authorization) {
        this.baseUrl = baseUrl;
        this.authorization = authorization;
    }

    /** The same endpoint, every request with {@code Authorization: Bearer <token>}. */
    public AdminClient withToken(String token) {
        return new AdminClient(baseUrl, "Bearer " + token);
    }

    /** The same endpoint, every request with this Authorization header. */
    public AdminClient withAuthorization(String header) {
        return new AdminClient(baseUrl, header);
    }

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30)).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** GET, expecting the given status, the body as JSON. */
    public JsonNode json(String path, int status) throws IOException, InterruptedException {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != status) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ", not " + status + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** GET /routes, parsed. */
    public JsonNode routes() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/routes");
        if (response.statusCode() != 200) {
            throw new AssertionError("GET /routes answered " + response.statusCode() + ": " + response.body());
        }
        return new YAMLMapper().readTree(response.body());
    }

    /** GET /metrics as sample -> value, a sample named as Prometheus writes it: name{labels}. */
    public Map<String, Double> metrics() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/metrics");
        if (response.statusCode() != 200) {
            throw new AssertionError("GET /metrics answered " + response.statusCode() + ": " + response.body());
        }
        Map<String, Double> samples = new HashMap<>();
        for (String line : response.body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return samples;
    }

    /** A sample's value, 0 when it is absent. */
    public double metric(String sample) throws IOException, InterruptedException {
        return metrics().getOrDefault(sample, 0.0);
    }
}
