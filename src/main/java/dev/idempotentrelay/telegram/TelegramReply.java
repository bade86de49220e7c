package dev.idempotentrelay.telegram;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Composes the reply telegram into variable {@code reply} (SPEC section 2): the request's 45-byte header (variable
 * {@code request}) with kind R and the code in variable {@code rspCode}, followed, when that code is 0000, by the
 * 45-byte body in variable {@code acceptedBody}; every other code has an empty body.
 */
public class TelegramReply implements Processor {

    private static final byte[] NO_BODY = new byte[0];

    @Override
    public void process(Exchange exchange) {
        String code = exchange.getVariable("rspCode", String.class);
        byte[] body = Telegram.RSP_ACCEPTED.equals(code) ? exchange.getVariable("acceptedBody", byte[].class) : NO_BODY;
        if (body == null) {
            throw new IllegalStateException("a 0000 reply without the accepted body");
        }
        exchange.setVariable("reply", Telegram.reply(exchange.getVariable("request", byte[].class), code, body));
    }
}
