package dev.idempotentrelay.ledger;

import dev.idempotentrelay.jobs.ClusteredJobStore;
import java.util.regex.Pattern;

/**
 * The name a relay writes into the ledger with every change it makes (column {@code relay} of {@code tx} and
 * {@code tx_history}): {@code relay.name}, or this host's name and the channel port ({@code bank-a1:9100}). It goes into
 * the SQL files as a literal ({@code {{relay.ledger.relay}}}), so it is held to letters, digits and {@code . _ : @ -}.
 */
public final class RelayName {

    /** What a name may hold: no quote, no space, nothing that SQL could read as more than a name. */
    public static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._:@-]{1,64}");

    private RelayName() {
    }

    /** {@code configured}, or when it is blank, this host's name and {@code port}. */
    public static String of(String configured, int port) {
        return of(configured, Integer.toString(port));
    }

    /** {@code configured}, or when it is blank, this host's name and {@code suffix} (a port, or a one-shot command). */
    public static String of(String configured, String suffix) {
        String name = configured == null || configured.isBlank() ? host() + ":" + suffix : configured;
        if (!ALLOWED.matcher(name).matches()) {
            throw new IllegalArgumentException("relay.name must be 1 to 64 letters, digits, '.', '_', ':', '@' or '-', not '" + name + "'");
        }
        return name;
    }

    /** The name as a SQL string literal, for the SQL files' {@code {{relay.ledger.relay}}}. */
    public static String literal(String name) {
        return "'" + name + "'";
    }

    private static String host() {
        String host = ClusteredJobStore.host();
        return ALLOWED.matcher(host + ":").matches() ? host : "localhost";
    }
}
