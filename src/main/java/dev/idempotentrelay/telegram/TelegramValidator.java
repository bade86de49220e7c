package dev.idempotentrelay.telegram;

import static dev.idempotentrelay.telegram.Telegram.*;

import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

/**
 * Checks a channel request against SPEC section 2 and puts what the routes need into headers:
 * {@code request} (the message bytes, moved out of the body, which stays empty until the reply is put
 * there; set first so that even a refusal can copy its header), {@code guid} (set before the checks, so
 * that a refusal's log line names it), {@code txCode}, and for the transfer's log line {@code channel},
 * {@code fromAccount}, {@code toAccount} and {@code amount}. A readable but invalid request raises
 * {@link InvalidTelegramException}.
 */
public class TelegramValidator implements Processor {

    private static final Pattern GUID_PATTERN = Pattern.compile("[0-9A-Za-z]{32}");
    private static final Pattern ID_FIELD = Pattern.compile("[0-9A-Za-z]+ *");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    @Override
    public void process(Exchange exchange) throws InvalidTelegramException {
        Message in = exchange.getMessage();
        byte[] request = in.getBody(byte[].class);
        in.setHeader("request", request);
        in.setBody(null);
        if (request != null && request.length >= GUID + GUID_WIDTH) {
            in.setHeader("guid", Telegram.guid(request));
        }
        check(request);
        in.setHeader("txCode", raw(request, TX_CODE, 4));
        // for the transfer's log line (account numbers are masked there by AccountMaskingFormatter)
        in.setHeader("channel", field(request, CHANNEL, CHANNEL_WIDTH));
        in.setHeader("fromAccount", field(request, FROM, ACCOUNT_WIDTH));
        in.setHeader("toAccount", field(request, TO, ACCOUNT_WIDTH));
        in.setHeader("amount", Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)));
    }

    static void check(byte[] request) throws InvalidTelegramException {
        if (request == null || request.length < HEADER_LENGTH) {
            throw new InvalidTelegramException("shorter than a header");
        }
        for (int i = 0; i < request.length; i++) {
            if (request[i] < 0x20 || request[i] > 0x7e) {
                throw new InvalidTelegramException("byte " + i + " is not printable ASCII");
            }
        }
        if (!TX_TRANSFER.equals(raw(request, TX_CODE, 4))) {
            throw new InvalidTelegramException("unknown tx_code " + raw(request, TX_CODE, 4));
        }
        if (request[KIND] != KIND_REQUEST) {
            throw new InvalidTelegramException("kind is not Q");
        }
        if (!GUID_PATTERN.matcher(raw(request, GUID, GUID_WIDTH)).matches()) {
            throw new InvalidTelegramException("guid is not 32 letters and digits");
        }
        if (!ID_FIELD.matcher(raw(request, CHANNEL, CHANNEL_WIDTH)).matches()) {
            throw new InvalidTelegramException("channel is not letters and digits, left-justified");
        }
        if (!RSP_NONE.equals(raw(request, RSP_CODE, 4))) {
            throw new InvalidTelegramException("rsp_code of a request is not 4 spaces");
        }
        if (request.length != REQUEST_LENGTH) {
            throw new InvalidTelegramException("TR01 request is " + request.length + " bytes, not " + REQUEST_LENGTH);
        }
        if (!ID_FIELD.matcher(raw(request, FROM, ACCOUNT_WIDTH)).matches()) {
            throw new InvalidTelegramException("from is not an account: letters and digits, left-justified");
        }
        if (!ID_FIELD.matcher(raw(request, TO, ACCOUNT_WIDTH)).matches()) {
            throw new InvalidTelegramException("to is not an account: letters and digits, left-justified");
        }
        String amount = raw(request, AMOUNT, AMOUNT_WIDTH);
        if (!DIGITS.matcher(amount).matches()) {
            throw new InvalidTelegramException("amount is not 15 digits");
        }
        if (Long.parseLong(amount) == 0) {
            throw new InvalidTelegramException("amount is zero");
        }
    }
}
