package dev.idempotentrelay.diagram;

import org.apache.camel.NamedNode;

/**
 * The live counts a picture shows: per step of the route model, and per route. A picture drawn from the route files
 * alone ({@link #NONE}) shows none.
 */
public interface Counts {

    /** No counts: the pictures drawn from the files, before the routes run. */
    Counts NONE = new Counts() {
        @Override
        public StepCount step(NamedNode node) {
            return null;
        }

        @Override
        public StepCount route(String routeId) {
            return null;
        }
    };

    /** The counts of one step of the model (a node of a route's definition), or null when it is not counted. */
    StepCount step(NamedNode node);

    /** The counts of a route as a whole (the exchanges its {@code from} took in), or null when it is not counted. */
    StepCount route(String routeId);
}
