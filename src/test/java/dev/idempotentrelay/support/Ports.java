package dev.idempotentrelay.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

public final class Ports {

    private Ports() {
    }

    /** A TCP port that was free a moment ago. */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
