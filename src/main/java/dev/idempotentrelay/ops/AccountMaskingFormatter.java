package dev.idempotentrelay.ops;

import static dev.idempotentrelay.telegram.Telegram.isLetterOrDigit;

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
 *
 * <p>It runs on the log line of every transfer, so the {@code from=}/{@code to=} form (the one that line
 * carries) is found by a scan for {@code =}, and the two regular expressions run only on a line that holds
 * their literal start.
 */
public class AccountMaskingFormatter implements MaskingFormatter {

    private static final String[] KEYS = {"from", "to"};
    private static final Pattern JSON_FIELD = Pattern.compile("(\"(?:from|to)\"\\s*:\\s*\")([^\"]*)(\")");
    /** A TR01 request: header (tx_code, kind, guid, channel, rsp_code), then from and to, 16 characters each. */
    private static final Pattern TELEGRAM = Pattern.compile("(TR01Q[0-9A-Za-z]{32}.{8})(.{16})(.{16})");

    @Override
    public String format(String source) {
        if (source == null || source.isEmpty()) {
            return source;
        }
        String masked = maskKeyValues(source);
        if (masked.contains("\"from\"") || masked.contains("\"to\"")) {
            masked = replace(JSON_FIELD, masked, m -> m.group(1) + mask(m.group(2)) + m.group(3));
        }
        if (masked.contains("TR01Q")) {
            masked = replace(TELEGRAM, masked, m -> m.group(1) + maskField(m.group(2)) + maskField(m.group(3)));
        }
        return masked;
    }

    /** All but the last four characters as {@code *}; four or fewer: all. */
    public static String mask(String account) {
        int shown = account.length() > 4 ? 4 : 0;
        return "*".repeat(account.length() - shown) + account.substring(account.length() - shown);
    }

    /**
     * Masks the value of every {@code from=} and {@code to=} whose key starts a word: the letters and digits after
     * the {@code =}.
     */
    static String maskKeyValues(String text) {
        StringBuilder out = null;
        int copied = 0;
        for (int eq = text.indexOf('='); eq >= 0; eq = text.indexOf('=', eq + 1)) {
            if (!followsKey(text, eq)) {
                continue;
            }
            int end = eq + 1;
            while (end < text.length() && isLetterOrDigit(text.charAt(end))) {
                end++;
            }
            if (end == eq + 1) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, copied, eq + 1).append(mask(text.substring(eq + 1, end)));
            copied = end;
            eq = end - 1;
        }
        return out == null ? text : out.append(text, copied, text.length()).toString();
    }

    private static boolean followsKey(String text, int eq) {
        for (String key : KEYS) {
            int start = eq - key.length();
            if (start >= 0 && text.startsWith(key, start) && (start == 0 || !isWordCharacter(text.charAt(start - 1)))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isWordCharacter(char c) {
        return isLetterOrDigit(c) || c == '_';
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
