package dev.idempotentrelay.telegram;

import static dev.idempotentrelay.telegram.Telegram.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * Translates between the channel telegram and the core's JSON (SPEC sections 2 to 4): the POST body
 * for a request, the reply for whatever the core answered, and the header-only replies for refusals.
 * The routes call its exchange methods as processors: {@code toCoreRequest}, {@code fromCoreAnswer},
 * {@code refusal} and {@code inquiryReply} (bound under those names by the relay).
 */
public class TelegramMapper {

    private static final Pattern REJECTION_CODE = Pattern.compile("B2[0-9]{2}");
    private static final Pattern CORE_REF = Pattern.compile("[\\x20-\\x7e]{1,16}");
    private static final Pattern PROCESSED_AT = Pattern.compile("[0-9]{14}");
    private static final long MAX_BALANCE = 999_999_999_999_999L;

    private final ObjectMapper json = new ObjectMapper();

    /** Puts into the body the JSON of {@code POST /v1/transfers} for the request in header {@code request}. */
    public void toCoreRequest(Exchange exchange) {
        Message in = exchange.getMessage();
        in.setBody(coreRequest(in.getHeader("request", byte[].class)));
    }

    /** The body of {@code POST /v1/transfers} for a stored TR01 request: strings trimmed, amount an integer. */
    public String coreRequest(byte[] request) {
        ObjectNode body = json.createObjectNode();
        body.put("guid", field(request, GUID, GUID_WIDTH));
        body.put("from", field(request, FROM, ACCOUNT_WIDTH));
        body.put("to", field(request, TO, ACCOUNT_WIDTH));
        body.put("amount", Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)));
        body.put("memo", field(request, MEMO, MEMO_WIDTH));
        return body.toString();
    }

    /**
     * Maps the core's answer to a POST into the reply for the channel (the body) and its code (header
     * {@code rspCode}): 200 with a complete body is 0000, 422 with a B2xx code is that code, anything else E500.
     */
    public void fromCoreAnswer(Exchange exchange) {
        Message in = exchange.getMessage();
        byte[] request = in.getHeader("request", byte[].class);
        Integer status = in.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String answer = in.getBody(String.class);
        String code = "E500";
        byte[] body = new byte[0];
        if (status != null && status == 200) {
            byte[] accepted = acceptedBody(answer, guid(request));
            if (accepted != null) {
                code = RSP_ACCEPTED;
                body = accepted;
            }
        } else if (status != null && status == 422) {
            String rejection = text(parse(answer), "code");
            if (rejection != null && REJECTION_CODE.matcher(rejection).matches()) {
                code = rejection;
            }
        }
        in.setHeader("rspCode", code);
        in.setBody(Telegram.reply(request, code, body));
    }

    /**
     * The 45-byte accepted body built from the core's transfer JSON (the POST's 200 or the inquiry's), or
     * null when the JSON is not a complete answer for this GUID.
     */
    public byte[] acceptedBody(String answer, String guid) {
        JsonNode node = parse(answer);
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

    /**
     * Maps the core's answer to an inquiry ({@code GET /v1/transfers/{guid}}) into header {@code reply}:
     * the stored request's header with 0000 and the 45-byte body from the JSON, when the answer is a 200
     * with a complete transfer for this GUID; otherwise the header is removed.
     */
    public void inquiryReply(Exchange exchange) {
        Message in = exchange.getMessage();
        byte[] request = in.getHeader("request", byte[].class);
        Integer status = in.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        byte[] accepted = status != null && status == 200 ? acceptedBody(in.getBody(String.class), guid(request)) : null;
        if (accepted == null) {
            in.removeHeader("reply");
        } else {
            in.setHeader("reply", Telegram.reply(request, RSP_ACCEPTED, accepted));
        }
    }

    /** Puts into the body a reply with no body: the request's header, kind R, and the code in header {@code rspCode}. */
    public void refusal(Exchange exchange) {
        Message in = exchange.getMessage();
        in.setBody(Telegram.reply(in.getHeader("request", byte[].class), in.getHeader("rspCode", String.class), new byte[0]));
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
