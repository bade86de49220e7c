package dev.idempotentrelay.core;

import java.net.ConnectException;

/**
 * The core was not reached: no connection to it was made, so no request left, and a transfer is certainly not sent
 * (FAILED/E902, where any failure after the request may have left is UNKNOWN/E901). Thrown for the core's pool by
 * {@link CoreConnectionManager} in place of what HttpClient throws when a connection cannot be made: a connect that
 * timed out or was refused, a host that has no address or no route. The routes catch this one class
 * ({@code call-core}, {@code inquire-core}). A {@link ConnectException}, as what it replaces was to HttpClient; its
 * message is theirs, its cause what was thrown.
 */
public class CoreNotReachedException extends ConnectException {

    public CoreNotReachedException(Exception notConnected) {
        super(notConnected.getMessage());
        initCause(notConnected);
    }
}
