package dev.idempotentrelay;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.ReplicationCheck;
import dev.idempotentrelay.ops.AdminHttpServer;
import dev.idempotentrelay.wire.ConnectionGate;
import io.netty.channel.unix.Errors;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;

/**
 * The relay as a Camel Main application: application.properties, overridden by the given properties
 * (the command line's flags), the YAML routes, and the Java beans they call (wired by {@link ChannelBeans},
 * {@link LedgerBeans} and {@link RelayBeans}). Before any route starts, the ledger's version has been checked
 * (LedgerMigrations, begun by LedgerBeans: a SQLite file that the
 * relay serves channels from is migrated, any other ledger refused when this build cannot run on it), a
 * PostgreSQL ledger's replication is checked (a ledger that can lose an acknowledged claim at a failover is refused
 * unless relay.db.allow-async-replication), and, when asked, the core simulator starts and the admin endpoint's HTTP
 * server is added (relay.admin.enabled).
 */
public final class Relay implements AutoCloseable {

    /** What ends the prefix netty's epoll transport puts before the system's words: "bind(..) failed with error(-98): ". */
    private static final String NATIVE_ERROR = "): ";

    private final Main main = new Main();
    private final RelaySecrets secrets;
    private CoreSimulator coreSimulator;
    private boolean closed;

    private Relay(Map<String, String> overrides, RelaySecrets secrets) {
        this.secrets = secrets;
        // the beans are wired by ChannelBeans, LedgerBeans and RelayBeans (camel.main.configuration-classes); the secrets
        // travel beside the properties, never among them, so that no placeholder can show them
        overrides.forEach(main::addOverrideProperty);
        main.bind(RelaySecrets.BEAN, secrets);
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void afterConfigure(BaseMainSupport configured) {
                prepare(configured.getCamelContext());
            }
        });
    }

    /** Starts the relay with the secrets of this process's environment and returns once its routes are started. */
    public static Relay start(Map<String, String> overrides) throws Exception {
        return start(overrides, RelaySecrets.from(System.getenv()));
    }

    /** Starts the relay with the given secrets (passwords, admin token) and returns once its routes are started. */
    public static Relay start(Map<String, String> overrides, RelaySecrets secrets) throws Exception {
        Relay relay = new Relay(overrides, secrets);
        try {
            relay.main.start();
        } catch (Exception | Error e) {
            relay.close();
            throw e;
        }
        if (relay.main.getCamelContext() == null || !relay.main.getCamelContext().isStarted()) {
            relay.close();
            throw new IllegalStateException("the relay did not start");
        }
        return relay;
    }

    public CamelContext context() {
        return main.getCamelContext();
    }

    /**
     * Stops gracefully: no new connection is admitted, idle ones are closed, the transfers in flight
     * finish, are recorded and answered (each connection closes after its last reply), then Camel stops
     * with its own graceful shutdown (camel.main.shutdown-timeout), which lets a timed run in flight finish. Once: a
     * second call (a stop signal's hook and the command's own end) returns at once, or when the first has stopped it.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        AutoCloseable ledger = main.getCamelContext() == null ? null
                : main.getCamelContext().getRegistry().lookupByNameAndType("ledger", AutoCloseable.class);
        try {
            drainChannels();
            main.stop();
            // the ledger's pool, on either database; SQLite's group-commit writer stopped with Camel (LedgerWriteComponent)
            if (ledger != null) {
                ledger.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException("the ledger did not close: " + e.getMessage(), e);
        } finally {
            if (coreSimulator != null) {
                coreSimulator.close();
            }
        }
    }

    /**
     * Camel's graceful shutdown cannot do this part: stopping the netty consumer closes every accepted connection
     * at once, replies not yet written included, and its wait for in-flight exchanges comes after that. So the
     * connection gate drains the channels first and this waits until the last connection has closed after its reply
     * (or for the longest a core call may take, plus 5 s).
     */
    private void drainChannels() {
        CamelContext context = main.getCamelContext();
        if (context == null || !context.isStarted()) {
            return;
        }
        ConnectionGate gate = context.getRegistry().lookupByNameAndType("connectionGate", ConnectionGate.class);
        if (gate == null) {
            return;
        }
        long limitMs = Long.parseLong(context.resolvePropertyPlaceholders("{{relay.core.connect-timeout-ms}}"))
                + Long.parseLong(context.resolvePropertyPlaceholders("{{relay.core.read-timeout-ms}}")) + 5_000;
        try {
            gate.drain().get(limitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // past the limit Camel's shutdown closes what is left
        }
    }

    private void prepare(CamelContext context) {
        // the ledger's version, checked (or a SQLite file migrated) since LedgerBeans made the pool (LedgerMigrations)
        try {
            context.getRegistry().lookupByNameAndType("ledgerVersion", CompletableFuture.class).join();
        } catch (CompletionException e) {
            throw new LedgerUnusableException(context.resolvePropertyPlaceholders("{{relay.db}}"),
                    e.getCause() instanceof Exception cause ? cause : e);
        }
        ReplicationCheck replication = context.getRegistry().lookupByNameAndType("ledgerReplication", ReplicationCheck.class);
        if (replication != null) {
            replication.checkAtStart();
        }
        if (Boolean.parseBoolean(context.resolvePropertyPlaceholders("{{relay.core-sim.enabled}}"))) {
            URI core = URI.create(context.resolvePropertyPlaceholders("{{relay.core.url}}"));
            int port = core.getPort() > 0 ? core.getPort() : 80;
            long slowMs = Long.parseLong(context.resolvePropertyPlaceholders("{{relay.core-sim.slow-ms}}"));
            try {
                coreSimulator = CoreSimulator.start(port, slowMs);
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the core simulator on port " + port + ": " + e.getMessage(), e);
            }
        }
        if (Boolean.parseBoolean(context.resolvePropertyPlaceholders("{{relay.admin.enabled}}"))) {
            String host = context.resolvePropertyPlaceholders("{{relay.admin.host}}");
            int port = Integer.parseInt(context.resolvePropertyPlaceholders("{{relay.admin.port}}"));
            try {
                AdminHttpServer.addTo(context, host, port, secrets.adminToken());
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the admin endpoint on " + host + ":" + port + ": " + e.getMessage(), e);
            }
        }
    }

    /** The ledger file cannot be opened, created or brought to the schema. */
    public static class LedgerUnusableException extends RuntimeException {
        LedgerUnusableException(String db, Exception cause) {
            super("cannot use ledger " + LedgerDialect.describe(db) + ": " + rootMessage(cause), cause);
        }
    }

    /** The message of the deepest cause: what went wrong, without the layers that reported it. */
    public static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.toString() : root.getMessage();
        // netty's epoll transport words a failed system call "bind(..) failed with error(-98): Address already in
        // use"; the JDK, and this line, only "Address already in use"
        if (root instanceof Errors.NativeIoException && message.contains(NATIVE_ERROR)) {
            return message.substring(message.indexOf(NATIVE_ERROR) + NATIVE_ERROR.length());
        }
        return message;
    }
}
