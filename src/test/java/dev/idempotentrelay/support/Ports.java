package dev.idempotentrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

public final class Ports {

    /**
     * Every port handed out in this JVM: the system may give a port just closed to the next caller, and relays that
     * start together (SeveralRelaysOneLedgerTest) would then race to bind the same one.
     */
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private Ports() {
    }

    /** A TCP port that was free a moment ago, and that no caller in this JVM got before. */
    public static synchronized int free() {
        while (true) {
            try (ServerSocket socket = new ServerSocket(0)) {
                socket.setReuseAddress(true);
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
