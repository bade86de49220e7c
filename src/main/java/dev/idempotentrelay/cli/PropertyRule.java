package dev.idempotentrelay.cli;

import dev.idempotentrelay.ledger.RelayName;
import dev.idempotentrelay.wire.ChannelAllowList;
import java.net.URI;

/** What values a relay property takes: {@link #problem} says what a refused value must be, in words. */
@FunctionalInterface
interface PropertyRule {

    /** Null when {@code value} is allowed, else what it must be ("must be a whole number of at least 1"). */
    String problem(String value);

    static PropertyRule atLeast(long min) {
        return value -> {
            long n = wholeNumber(value);
            return n >= min ? null : "must be a whole number of at least " + min;
        };
    }

    /** A share: a decimal number above 0 and at most 1, such as 0.3. */
    static PropertyRule share() {
        return value -> {
            try {
                double n = Double.parseDouble(value);
                if (n > 0 && n <= 1 && value.matches("[0-9.]+")) {
                    return null;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            return "must be a number above 0 and at most 1, such as 0.3";
        };
    }

    /** Empty (the host's name and port), or a name the ledger's history can hold as it is ({@link RelayName}). */
    static PropertyRule relayName() {
        return value -> value.isEmpty() || RelayName.ALLOWED.matcher(value).matches() ? null
                : "must be 1 to 64 letters, digits, '.', '_', ':', '@' or '-' (empty: the host's name and the port)";
    }

    static PropertyRule port() {
        return value -> {
            long n = wholeNumber(value);
            if (n < 1) {
                return "must be a whole number of at least 1";
            }
            return n <= 65535 ? null : "must be at most 65535";
        };
    }

    static PropertyRule bool() {
        return value -> "true".equals(value) || "false".equals(value) ? null : "must be true or false";
    }

    static PropertyRule address() {
        return value -> value.isBlank() ? "must be an address, such as 127.0.0.1 or 0.0.0.0" : null;
    }

    static PropertyRule ledger() {
        return value -> value.isBlank() ? "must name a SQLite file or a jdbc:postgresql://HOST[:PORT]/DB URL" : null;
    }

    static PropertyRule anything() {
        return value -> null;
    }

    /** Empty (every address allowed) or CIDR[,CIDR...], as {@link ChannelAllowList} reads them. */
    static PropertyRule cidrs() {
        return value -> {
            try {
                ChannelAllowList.of(value);
                return null;
            } catch (IllegalArgumentException e) {
                return "must be CIDR[,CIDR...] such as 10.0.0.0/8,127.0.0.1/32 (" + e.getMessage() + ")";
            }
        };
    }

    static PropertyRule httpUrl() {
        return value -> {
            try {
                URI uri = URI.create(value);
                if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                    return null;
                }
            } catch (IllegalArgumentException e) {
                // refused below
            }
            return "must be a URL such as http://localhost:9201";
        };
    }

    /** The value as a whole number, or -1 when it is none (every number rule wants at least 0). */
    static long wholeNumber(String value) {
        if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9') || value.length() > 18) {
            return -1;
        }
        return Long.parseLong(value);
    }
}
