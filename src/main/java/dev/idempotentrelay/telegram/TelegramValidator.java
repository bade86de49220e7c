package dev.idempotentrelay.telegram;

import static dev.idempotentrelay.telegram.Telegram.*;

import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Checks a channel request against SPEC section 2 and reads its fields into exchange variables: {@code request}
 * (the message bytes, as the ledger stores them; set first so that even a refusal can copy its header),
 * {@code guid} (set before the checks, so that a refusal's log line names it), {@code txCode}, and for the
 * transfer's log line {@code channel}, {@code fromAccount}, {@code toAccount} and {@code amount}. The body stays
 * the telegram. A readable but invalid request raises {@link InvalidTelegramException}.
 */
public class TelegramValidator implements Processor {

    private static final Pattern GUID_FIELD = Pattern.compile(Telegram.GUID_PATTERN);

    @Override
    public void process(Exchange exchange) throws InvalidTelegramException {
        byte[] request = exchange.getMessage().getBody(byte[].class);
        exchange.setVariable("request", request);
        if (request != null && request.length >= GUID + GUID_WIDTH) {
            exchange.setVariable("guid", Telegram.guid(request));
        }
        check(request);
        exchange.setVariable("txCode", raw(request, TX_CODE, 4));
        // for the transfer's log line (account numbers are masked there by AccountMaskingFormatter)
        exchange.setVariable("channel", field(request, CHANNEL, CHANNEL_WIDTH));
        exchange.setVariable("fromAccount", field(request, FROM, ACCOUNT_WIDTH));
        exchange.setVariable("toAccount", field(request, TO, ACCOUNT_WIDTH));
        exchange.setVariable("amount", Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)));
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
        if (!GUID_FIELD.matcher(raw(request, GUID, GUID_WIDTH)).matches()) {
            throw new InvalidTelegramException("guid is not 32 letters and digits");
        }
        if (!isIdField(request, CHANNEL, CHANNEL_WIDTH)) {
            throw new InvalidTelegramException("channel is not letters and digits, left-justified");
        }
        if (!RSP_NONE.equals(raw(request, RSP_CODE, 4))) {
            throw new InvalidTelegramException("rsp_code of a request is not 4 spaces");
        }
        if (request.length != REQUEST_LENGTH) {
            throw new InvalidTelegramException("TR01 request is " + request.length + " bytes, not " + REQUEST_LENGTH);
        }
        if (!isIdField(request, FROM, ACCOUNT_WIDTH)) {
            throw new InvalidTelegramException("from is not an account: letters and digits, left-justified");
        }
        if (!isIdField(request, TO, ACCOUNT_WIDTH)) {
            throw new InvalidTelegramException("to is not an account: letters and digits, left-justified");
        }
        if (!isDigits(request, AMOUNT, AMOUNT_WIDTH)) {
            throw new InvalidTelegramException("amount is not 15 digits");
        }
        if (Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)) == 0) {
            throw new InvalidTelegramException("amount is zero");
        }
    }

    /**
     * A left-justified identifier (channel, account): one or more ASCII letters or digits, then only spaces. Checked on
     * the bytes, without a String and a regular expression per field: this runs on every telegram.
     */
    static boolean isIdField(byte[] message, int offset, int width) {
        int end = offset + width;
        int i = offset;
        while (i < end && isLetterOrDigit(message[i])) {
            i++;
        }
        if (i == offset) {
            return false;
        }
        while (i < end && message[i] == ' ') {
            i++;
        }
        return i == end;
    }

    /** Only ASCII digits, at least one. */
    static boolean isDigits(byte[] message, int offset, int width) {
        for (int i = offset; i < offset + width; i++) {
            if (message[i] < '0' || message[i] > '9') {
                return false;
            }
        }
        return width > 0;
    }
}
