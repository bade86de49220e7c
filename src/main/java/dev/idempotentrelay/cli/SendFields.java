package dev.idempotentrelay.cli;

import dev.idempotentrelay.telegram.Telegram;
import java.util.regex.Pattern;

/**
 * The fields of the transfer that {@code send} sends, checked against the widths and characters of SPEC section 2
 * before anything is sent: a field that does not fit is refused in one line naming its flag, not cut, padded or left
 * for the relay to answer E400.
 */
final class SendFields {

    private static final Pattern GUID = Pattern.compile(Telegram.GUID_PATTERN);
    private static final Pattern CHANNEL = Pattern.compile("[0-9A-Za-z]{1," + Telegram.CHANNEL_WIDTH + "}");
    private static final Pattern ACCOUNT = Pattern.compile("[0-9A-Za-z]{1," + Telegram.ACCOUNT_WIDTH + "}");
    private static final Pattern AMOUNT = Pattern.compile("[0-9]{1," + Telegram.AMOUNT_WIDTH + "}");
    private static final Pattern MEMO = Pattern.compile("[\\x20-\\x7e]{0," + Telegram.MEMO_WIDTH + "}");
    static final String DEFAULT_CHANNEL = "CLI1";

    private SendFields() {
    }

    /** The TR01 request of the flags, or a refusal of the first field that does not fit. */
    static byte[] request(Flags flags) throws UsageException {
        String guid = checked(flags, "guid", GUID, "32 letters and digits");
        String channel = flags.has("channel") ? checked(flags, "channel", CHANNEL, "1 to 4 letters and digits") : DEFAULT_CHANNEL;
        String from = checked(flags, "from", ACCOUNT, "an account of 1 to 16 letters and digits");
        String to = checked(flags, "to", ACCOUNT, "an account of 1 to 16 letters and digits");
        String amount = checked(flags, "amount", AMOUNT, "1 to 15 digits, more than 0");
        if (Long.parseLong(amount) == 0) {
            throw refused("amount", amount, "1 to 15 digits, more than 0");
        }
        String memo = flags.has("memo") ? checked(flags, "memo", MEMO, "at most 20 printable ASCII characters") : "";
        return Telegram.transferRequest(guid, channel, from, to, Long.parseLong(amount), memo);
    }

    private static String checked(Flags flags, String name, Pattern pattern, String rule) throws UsageException {
        String value = flags.required("send", name);
        if (!pattern.matcher(value).matches()) {
            throw refused(name, value, rule);
        }
        return value;
    }

    private static UsageException refused(String name, String value, String rule) {
        return new UsageException("send: --" + name + " must be " + rule + ", not '" + value + "'");
    }
}
