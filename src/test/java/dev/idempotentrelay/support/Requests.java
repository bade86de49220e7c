package dev.idempotentrelay.support;

import dev.idempotentrelay.telegram.Telegram;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** Transfer requests for tests, each with a fresh GUID unless one is given. */
public final class Requests {

    public static final String FROM = "1002003004005006";
    public static final String TO = "2003004005006007";

    private Requests() {
    }

    public static String newGuid() {
        return UUID.randomUUID().toString().replace("-", "").toUpperCase();
    }

    public static byte[] transfer(String guid, long amount, String memo) {
        return Telegram.transferRequest(guid, "MOB1", FROM, TO, amount, memo);
    }

    public static byte[] transfer(String guid) {
        return transfer(guid, 10_000, "lunch money");
    }

    public static String text(byte[] message) {
        return new String(message, StandardCharsets.US_ASCII);
    }
}
