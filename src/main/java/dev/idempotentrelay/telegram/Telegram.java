package dev.idempotentrelay.telegram;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fixed-width layout of a channel telegram (SPEC section 2): field offsets, and building or reading
 * the fields of a message. Text is left-justified and space-padded, numbers right-justified and zero-padded.
 */
public final class Telegram {

    public static final String TX_TRANSFER = "TR01";
    public static final byte KIND_REQUEST = 'Q';
    public static final byte KIND_REPLY = 'R';
    public static final String RSP_NONE = "    ";
    public static final String RSP_ACCEPTED = "0000";
    /** A GUID: 32 letters and digits, chosen by the channel. The one definition, for the relay, the CLI and the admin API. */
    public static final String GUID_PATTERN = "[0-9A-Za-z]{32}";

    // header
    public static final int TX_CODE = 0;
    public static final int KIND = 4;
    public static final int GUID = 5;
    public static final int CHANNEL = 37;
    public static final int RSP_CODE = 41;
    public static final int HEADER_LENGTH = 45;

    // TR01 request body
    public static final int FROM = 45;
    public static final int TO = 61;
    public static final int AMOUNT = 77;
    public static final int MEMO = 92;
    public static final int REQUEST_LENGTH = 112;

    // reply body, when rsp_code is 0000
    public static final int CORE_REF = 45;
    public static final int BALANCE_AFTER = 61;
    public static final int PROCESSED_AT = 76;
    public static final int ACCEPTED_REPLY_LENGTH = 90;

    public static final int GUID_WIDTH = 32;
    public static final int CHANNEL_WIDTH = 4;
    public static final int ACCOUNT_WIDTH = 16;
    public static final int AMOUNT_WIDTH = 15;
    public static final int MEMO_WIDTH = 20;
    public static final int CORE_REF_WIDTH = 16;
    public static final int BALANCE_WIDTH = 15;
    public static final int PROCESSED_AT_WIDTH = 14;

    private Telegram() {
    }

    /** A TR01 request message (without frame prefix). Values that do not fit their field are refused. */
    public static byte[] transferRequest(String guid, String channel, String from, String to, long amount, String memo) {
        StringBuilder s = new StringBuilder(REQUEST_LENGTH);
        s.append(TX_TRANSFER).append((char) KIND_REQUEST);
        s.append(text(guid, GUID_WIDTH, "guid"));
        s.append(text(channel, CHANNEL_WIDTH, "channel"));
        s.append(RSP_NONE);
        s.append(text(from, ACCOUNT_WIDTH, "from"));
        s.append(text(to, ACCOUNT_WIDTH, "to"));
        s.append(number(amount, AMOUNT_WIDTH, "amount"));
        s.append(text(memo == null ? "" : memo, MEMO_WIDTH, "memo"));
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A reply to {@code request}: its header with kind R and the given code, followed by {@code body}.
     * Only the 45 header bytes of the request are used, so an invalid request still gets its fields copied.
     */
    public static byte[] reply(byte[] request, String rspCode, byte[] body) {
        byte[] reply = new byte[HEADER_LENGTH + body.length];
        System.arraycopy(request, 0, reply, 0, HEADER_LENGTH);
        reply[KIND] = KIND_REPLY;
        System.arraycopy(rspCode.getBytes(StandardCharsets.US_ASCII), 0, reply, RSP_CODE, 4);
        System.arraycopy(body, 0, reply, HEADER_LENGTH, body.length);
        return reply;
    }

    /** The 45-byte body of an accepted reply. */
    public static byte[] acceptedBody(String coreRef, long balanceAfter, String processedAt) {
        String body = text(coreRef, CORE_REF_WIDTH, "core_ref")
                + number(balanceAfter, BALANCE_WIDTH, "balance_after")
                + text(processedAt, PROCESSED_AT_WIDTH, "processed_at");
        return body.getBytes(StandardCharsets.US_ASCII);
    }

    /** An ASCII letter or digit: the characters of a GUID, a channel id and an account number. */
    public static boolean isLetterOrDigit(int c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    /** The raw bytes of a field as ASCII text, padding included. */
    public static String raw(byte[] message, int offset, int width) {
        return new String(Arrays.copyOfRange(message, offset, offset + width), StandardCharsets.US_ASCII);
    }

    /** A text field without its padding. */
    public static String field(byte[] message, int offset, int width) {
        return raw(message, offset, width).strip();
    }

    public static String rspCode(byte[] message) {
        return raw(message, RSP_CODE, 4);
    }

    public static String guid(byte[] message) {
        return raw(message, GUID, GUID_WIDTH);
    }

    static String text(String value, int width, String name) {
        if (value.length() > width) {
            throw new IllegalArgumentException(name + " is longer than " + width + " characters: " + value);
        }
        return value + " ".repeat(width - value.length());
    }

    static String number(long value, int width, String name) {
        String digits = Long.toString(value);
        if (value < 0 || digits.length() > width) {
            throw new IllegalArgumentException(name + " does not fit " + width + " digits: " + value);
        }
        return "0".repeat(width - digits.length()) + digits;
    }
}
