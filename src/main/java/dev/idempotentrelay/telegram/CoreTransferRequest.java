package dev.idempotentrelay.telegram;

import static dev.idempotentrelay.telegram.Telegram.*;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Maps the claimed TR01 request (variable {@code request}) to the body of the core's {@code POST /v1/transfers}
 * (SPEC section 4), into variable {@code coreRequest}: guid, from, to and memo trimmed, amount an integer.
 */
public class CoreTransferRequest implements Processor {

    private final ObjectMapper json = new ObjectMapper();

    @Override
    public void process(Exchange exchange) {
        exchange.setVariable("coreRequest", json(exchange.getVariable("request", byte[].class)));
    }

    String json(byte[] request) {
        ObjectNode body = json.createObjectNode();
        body.put("guid", field(request, GUID, GUID_WIDTH));
        body.put("from", field(request, FROM, ACCOUNT_WIDTH));
        body.put("to", field(request, TO, ACCOUNT_WIDTH));
        body.put("amount", Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)));
        body.put("memo", field(request, MEMO, MEMO_WIDTH));
        return body.toString();
    }
}
