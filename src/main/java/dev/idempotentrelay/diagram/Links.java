package dev.idempotentrelay.diagram;

/** Where a picture links a route's name to: its own picture, as a file beside this one or on the admin endpoint. */
@FunctionalInterface
public interface Links {

    /** Each route's picture as a file in the same folder: {@code claim-guid.svg}. */
    Links SIBLING_FILES = id -> id + ".svg";

    /** The address of the picture of the route (or route configuration) {@code id}. */
    String to(String id);
}
