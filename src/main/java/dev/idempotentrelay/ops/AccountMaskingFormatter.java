package dev.idempotentrelay.ops;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.spi.MaskingFormatter;

/**
 * Masks account numbers in the relay's log lines: every character of an account but the last four becomes
 * {@code *} ({@code 1002003004005006} is logged {@code ************5006}; an account of four characters or
 * fewer is masked whole). Camel applies it to every log step when {@code camel.main.log-mask} is true, looking
 * it up under the name {@code CamelCustomLogMask}. It knows the forms a log line can carry an account in:
 * {@code from=} and {@code to=} values, the {@code "from"} and {@code "to"} fields of the core's JSON, and the
 * from and to fields of a raw TR01 request telegram.
 */
public class AccountMaskingFormatter implements MaskingFormatter {

    private static final Pattern KEY_VALUE = Pattern.compile("\\b(from|to)=([0-9A-Za-z]+)");
    private static final Pattern JSON_FIELD = Pattern.compile("(\"(?:from|to)\"\\s*:\\s*\")([^\"]*)(\")");
    /** A TR01 request: header (tx_code, kind, guid, channel, rsp_code), then from and to, 16 characters each. */
    private static final Pattern TELEGRAM = Pattern.compile("(TR01Q[0-9A-Za-z]{32}.{8})(.{16})(.{16})");

    @Override
    public String format(String source) {
        if (source == null || source.isEmpty()) {
            return source;
        }
        String masked = replace(KEY_VALUE, source, m -> m.group(1) + "=" + mask(m.group(2)));
        masked = replace(JSON_FIELD, masked, m -> m.group(1) + mask(m.group(2)) + m.group(3));
        return replace(TELEGRAM, masked, m -> m.group(1) + maskField(m.group(2)) + maskField(m.group(3)));
    }

    /** All but the last four characters as {@code *}; four or fewer: all. */
    public static String mask(String account) {
        int shown = account.length() > 4 ? 4 : 0;
        return "*".repeat(account.length() - shown) + account.substring(account.length() - shown);
    }

    /** A space-padded fixed-width field: the account masked, the padding kept. */
    private static String maskField(String field) {
        String account = field.stripTrailing();
        return mask(account) + field.substring(account.length());
    }

    private static String replace(Pattern pattern, String text, java.util.function.Function<Matcher, String> replacement) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        do {
            m.appendReplacement(out, Matcher.quoteReplacement(replacement.apply(m)));
        } while (m.find());
        m.appendTail(out);
        return out.toString();
    }
}
