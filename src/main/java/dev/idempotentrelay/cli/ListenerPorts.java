package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.RelayProperty.ADMIN_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.ADMIN_HOST;
import static dev.idempotentrelay.cli.RelayProperty.ADMIN_PORT;
import static dev.idempotentrelay.cli.RelayProperty.CHANNEL_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.CORE_SIM_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.CORE_URL;
import static dev.idempotentrelay.cli.RelayProperty.HOST;
import static dev.idempotentrelay.cli.RelayProperty.PORT;

import io.netty.channel.unix.Errors;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.util.ObjectHelper;

/**
 * The ports a relay listens on (the channel listener, the admin endpoint, the in-process core simulator), tried
 * before the relay starts, so that a port taken by another process is refused in one line naming the port and what
 * would have listened there, rather than by a bind failure deep inside Camel's start.
 */
final class ListenerPorts {

    /** What listens, on which address. A null host is every address. */
    record Listener(String what, String host, int port) {
    }

    private ListenerPorts() {
    }

    /** The listeners that {@code settings} start. */
    static List<Listener> of(Settings settings) {
        List<Listener> listeners = new ArrayList<>();
        if (settings.isTrue(CHANNEL_ENABLED)) {
            listeners.add(new Listener("channel listener", settings.get(HOST), (int) settings.number(PORT)));
        }
        if (settings.isTrue(ADMIN_ENABLED)) {
            listeners.add(new Listener("admin endpoint", settings.get(ADMIN_HOST), (int) settings.number(ADMIN_PORT)));
        }
        if (settings.isTrue(CORE_SIM_ENABLED)) {
            URI core = URI.create(settings.get(CORE_URL));
            listeners.add(new Listener("core simulator", null, core.getPort() > 0 ? core.getPort() : 80));
        }
        return listeners;
    }

    /** Refuses a port that two of the listeners share, or that another process holds. */
    static void refuseTaken(String command, List<Listener> listeners) throws UsageException {
        for (int i = 0; i < listeners.size(); i++) {
            for (int j = i + 1; j < listeners.size(); j++) {
                if (listeners.get(i).port() == listeners.get(j).port()) {
                    throw new UsageException(command + ": port " + listeners.get(i).port() + " is set for both the "
                            + listeners.get(i).what() + " and the " + listeners.get(j).what());
                }
            }
        }
        for (Listener listener : listeners) {
            String problem = bindProblem(listener);
            if (problem != null) {
                throw new UsageException(command + ": " + problem);
            }
        }
    }

    /**
     * After a start that failed on a bind: the listener whose port is taken now (another process took it between the
     * check and the start), in one line; null when the failure was not a bind or no port is taken.
     */
    static String takenAfter(Throwable failure, List<Listener> listeners) {
        // the JDK's BindException, or the same errno from netty's epoll transport: "bind(..) failed with error(-98): ..."
        Errors.NativeIoException epoll = ObjectHelper.getException(Errors.NativeIoException.class, failure);
        if (ObjectHelper.getException(BindException.class, failure) == null
                && (epoll == null || !String.valueOf(epoll.getMessage()).startsWith("bind("))) {
            return null;
        }
        for (Listener listener : listeners) {
            String problem = bindProblem(listener);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /** Null when the listener's address can be bound now, else why not. */
    private static String bindProblem(Listener listener) {
        try (ServerSocket probe = new ServerSocket()) {
            // as netty and Vert.x bind: an address whose last connections linger in TIME_WAIT is free
            probe.setReuseAddress(true);
            probe.bind(listener.host() == null ? new InetSocketAddress(listener.port())
                    : new InetSocketAddress(listener.host(), listener.port()));
            return null;
        } catch (BindException e) {
            if (String.valueOf(e.getMessage()).contains("already in use")) {
                return "port " + listener.port() + " is already in use (" + listener.what() + ")";
            }
            return "cannot listen on " + address(listener) + " (" + listener.what() + "): " + e.getMessage();
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return "cannot listen on " + address(listener) + " (" + listener.what() + "): " + e.getMessage();
        }
    }

    private static String address(Listener listener) {
        return (listener.host() == null ? "*" : listener.host()) + ":" + listener.port();
    }
}
