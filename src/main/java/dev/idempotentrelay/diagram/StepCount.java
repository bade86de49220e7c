package dev.idempotentrelay.diagram;

/** What went through one step (or one route) since the relay started: the exchanges that reached it, and those that failed there. */
public record StepCount(long exchanges, long failures) {
}
