package dev.idempotentrelay.support;

import java.nio.charset.StandardCharsets;

/**
 * An independent reading of SPEC section 2 for tests: whether a message is a valid TR01 request.
 * Written apart from the relay's validator on purpose, as the judge of what the relay may store.
 */
public final class SpecOracle {

    private SpecOracle() {
    }

    public static boolean validRequest(byte[] m) {
        if (m.length != 112) {
            return false;
        }
        for (byte b : m) {
            if (b < 32 || b > 126) {
                return false;
            }
        }
        String s = new String(m, StandardCharsets.US_ASCII);
        return s.startsWith("TR01Q")
                && s.substring(5, 37).matches("[0-9A-Za-z]{32}")
                && s.substring(37, 41).matches("[0-9A-Za-z]+ *")
                && s.substring(41, 45).equals("    ")
                && s.substring(45, 61).matches("[0-9A-Za-z]+ *")
                && s.substring(61, 77).matches("[0-9A-Za-z]+ *")
                && s.substring(77, 92).matches("[0-9]{15}")
                && Long.parseLong(s.substring(77, 92)) > 0;
    }
}
