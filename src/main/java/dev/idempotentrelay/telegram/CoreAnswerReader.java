package dev.idempotentrelay.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;

/**
 * Reads the core's answer (variable {@code coreAnswer}, its HTTP status in {@code header:coreAnswer.CamelHttpResponseCode},
 * as a {@code to} with {@code variableReceive: coreAnswer} leaves them) into the variables the routes decide on:
 * <ul>
 * <li>{@code coreStatus}: the HTTP status;</li>
 * <li>{@code acceptedBody}: the 45-byte body of an accepted reply built from the transfer JSON (core_ref, balance_after,
 * processed_at), or null when the JSON is not a complete transfer for the request's GUID;</li>
 * <li>{@code rejectionCode}: the {@code code} string of the JSON, or null.</li>
 * </ul>
 * It maps fields and decides nothing: which code the channel gets is the route's choice.
 */
public class CoreAnswerReader implements org.apache.camel.Processor {

    private static final Pattern CORE_REF = Pattern.compile("[\\x20-\\x7e]{1," + Telegram.CORE_REF_WIDTH + "}");
    private static final Pattern PROCESSED_AT = Pattern.compile("[0-9]{" + Telegram.PROCESSED_AT_WIDTH + "}");
    private static final long MAX_BALANCE = 999_999_999_999_999L;

    private final ObjectMapper json = new ObjectMapper();

    @Override
    public void process(Exchange exchange) {
        byte[] request = exchange.getVariable("request", byte[].class);
        String answer = exchange.getVariable("coreAnswer", String.class);
        JsonNode node = parse(answer);
        exchange.setVariable("coreStatus", exchange.getVariable("header:coreAnswer." + Exchange.HTTP_RESPONSE_CODE, Integer.class));
        exchange.setVariable("acceptedBody", acceptedBody(node, Telegram.guid(request)));
        exchange.setVariable("rejectionCode", text(node, "code"));
    }

    private static byte[] acceptedBody(JsonNode node, String guid) {
        String coreRef = text(node, "core_ref");
        String processedAt = text(node, "processed_at");
        JsonNode balance = node == null ? null : node.get("balance_after");
        String answeredGuid = text(node, "guid");
        if (coreRef == null || !CORE_REF.matcher(coreRef).matches()
                || processedAt == null || !PROCESSED_AT.matcher(processedAt).matches()
                || balance == null || !(balance.canConvertToExactIntegral() || balance.isTextual())
                || (answeredGuid != null && !answeredGuid.equals(guid))) {
            return null;
        }
        long balanceAfter;
        try {
            balanceAfter = balance.isTextual() ? Long.parseLong(balance.asText()) : balance.longValue();
        } catch (NumberFormatException e) {
            return null;
        }
        if (balanceAfter < 0 || balanceAfter > MAX_BALANCE) {
            return null;
        }
        return Telegram.acceptedBody(coreRef, balanceAfter, processedAt);
    }

    private JsonNode parse(String answer) {
        if (answer == null || answer.isBlank()) {
            return null;
        }
        try {
            return json.readTree(answer);
        } catch (Exception e) {
            return null;
        }
    }

    private static String text(JsonNode node, String name) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode value = node.get(name);
        return value != null && value.isTextual() ? value.asText() : null;
    }
}
