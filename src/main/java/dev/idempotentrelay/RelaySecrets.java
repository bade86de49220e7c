package dev.idempotentrelay;

import java.util.Map;
import org.apache.camel.CamelContext;

/**
 * The relay's secrets, read from the environment only (SPEC section 8): never a flag, a property or a placeholder,
 * so that none of them can show in the process's arguments, in {@code /routes} or in {@code --dump-routes}.
 * {@code RELAY_TLS_KEYSTORE_PASSWORD} and {@code RELAY_TLS_TRUSTSTORE_PASSWORD} open the channel port's PKCS12 files;
 * {@code RELAY_ADMIN_TOKEN} is the bearer token of the admin endpoint; {@code RELAY_DB_PASSWORD} the password of a
 * PostgreSQL ledger. An empty variable counts as unset.
 * {@link #toString()} names which are set, never their values.
 */
public final class RelaySecrets {

    /** The name the relay binds these under in Camel's registry, for {@link ChannelBeans} and {@link LedgerBeans}. */
    public static final String BEAN = "relaySecrets";
    public static final String KEYSTORE_PASSWORD = "RELAY_TLS_KEYSTORE_PASSWORD";
    public static final String TRUSTSTORE_PASSWORD = "RELAY_TLS_TRUSTSTORE_PASSWORD";
    public static final String ADMIN_TOKEN = "RELAY_ADMIN_TOKEN";
    public static final String DB_PASSWORD = "RELAY_DB_PASSWORD";

    private final String keystorePassword;
    private final String truststorePassword;
    private final String adminToken;
    private final String dbPassword;

    private RelaySecrets(String keystorePassword, String truststorePassword, String adminToken, String dbPassword) {
        this.keystorePassword = keystorePassword;
        this.truststorePassword = truststorePassword;
        this.adminToken = adminToken;
        this.dbPassword = dbPassword;
    }

    /** The secrets the relay was started with (bound by {@code Relay}), else this process's environment. */
    static RelaySecrets of(CamelContext context) {
        RelaySecrets secrets = context.getRegistry().lookupByNameAndType(BEAN, RelaySecrets.class);
        return secrets != null ? secrets : from(System.getenv());
    }

    /** The secrets in an environment such as {@link System#getenv()}. */
    public static RelaySecrets from(Map<String, String> environment) {
        return new RelaySecrets(value(environment, KEYSTORE_PASSWORD), value(environment, TRUSTSTORE_PASSWORD),
                value(environment, ADMIN_TOKEN), value(environment, DB_PASSWORD));
    }

    private static String value(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value == null || value.isEmpty() ? null : value;
    }

    /** The password of the channel port's keystore, or null. */
    public String keystorePassword() {
        return keystorePassword;
    }

    /** The password of the channel port's truststore, or null. */
    public String truststorePassword() {
        return truststorePassword;
    }

    /** The admin endpoint's bearer token, or null when every admin request is served without one. */
    public String adminToken() {
        return adminToken;
    }

    /** The password of a PostgreSQL ledger, or null (then the URL's password=, if any, or none). */
    public String dbPassword() {
        return dbPassword;
    }

    @Override
    public String toString() {
        return "RelaySecrets[" + KEYSTORE_PASSWORD + (keystorePassword == null ? " unset" : " set") + ", "
                + TRUSTSTORE_PASSWORD + (truststorePassword == null ? " unset" : " set") + ", "
                + ADMIN_TOKEN + (adminToken == null ? " unset" : " set") + ", "
                + DB_PASSWORD + (dbPassword == null ? " unset" : " set") + "]";
    }
}
