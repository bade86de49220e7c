package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.RelayProperty.DAYS;
import static dev.idempotentrelay.cli.RelayProperty.HISTORY_DAYS;
import static dev.idempotentrelay.cli.RelayProperty.MIN_AGE;
import static dev.idempotentrelay.cli.RelayProperty.READ_TIMEOUT_MS;
import static dev.idempotentrelay.cli.RelayProperty.SENT_STALE_AFTER;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules between the timing settings of a running relay, on their effective values (flag, RELAY_* variable,
 * --config or built in). Each of min-age and sent-stale-after must be at least 1 s on its own ({@link RelayProperty});
 * here, against the read timeout, which is in milliseconds while they are in seconds.
 */
final class TimingRules {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    private TimingRules() {
    }

    /**
     * A SENT row no older than the read timeout may be a call still waiting for the core's answer: made UNKNOWN,
     * it would be asked about, found missing while the core still works on it, made FAILED and sent again.
     */
    static void refuseStaleBeforeReadTimeout(String command, Settings settings) throws UsageException {
        long readTimeoutMs = settings.number(READ_TIMEOUT_MS);
        // stale-after * 1000 <= read timeout, without the product (a value of 18 digits would overflow)
        if (settings.number(SENT_STALE_AFTER) <= readTimeoutMs / 1000) {
            throw new UsageException(command + ": " + settings.origin(SENT_STALE_AFTER) + " (" + settings.get(SENT_STALE_AFTER)
                    + " s) must be above the read timeout, " + settings.origin(READ_TIMEOUT_MS) + " (" + readTimeoutMs
                    + " ms): " + SENT_STALE_AFTER.reason);
        }
    }

    /**
     * A GUID's history outlives its row: kept fewer days than the DONE rows, a purged GUID's resend could meet a ledger
     * that neither has its row nor remembers that it had one.
     */
    static void refuseHistoryShorterThanDays(String command, Settings settings) throws UsageException {
        if (settings.number(HISTORY_DAYS) < settings.number(DAYS)) {
            throw new UsageException(command + ": " + settings.origin(HISTORY_DAYS) + " (" + settings.get(HISTORY_DAYS)
                    + " days) must be at least " + settings.origin(DAYS) + " (" + settings.get(DAYS) + " days): a GUID's history"
                    + " outlives its row, so that whether a GUID was ever here has an answer after the purge");
        }
    }

    /** min-age must exceed the core's longest processing, which the read timeout says may last that long. */
    static void warnIfMinAgeUnderReadTimeout(Settings settings) {
        long readTimeoutMs = settings.number(READ_TIMEOUT_MS);
        // min-age * 1000 < read timeout, without the product
        if (settings.number(MIN_AGE) < (readTimeoutMs + 999) / 1000) {
            LOG.warn("{} ({} s) is under the read timeout, {} ({} ms): an UNKNOWN transfer may be asked about while the "
                    + "core still applies it; min-age must exceed the core's longest processing",
                    settings.origin(MIN_AGE), settings.get(MIN_AGE), settings.origin(READ_TIMEOUT_MS), readTimeoutMs);
        }
    }
}
