package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.RelayProperty.DB;
import static dev.idempotentrelay.cli.RelayProperty.JOBS_CLUSTERED;

import dev.idempotentrelay.ledger.LedgerDialect;

/**
 * relay.jobs.clustered (--jobs-clustered) keeps the timers in Quartz's JDBC job store on the ledger's PostgreSQL
 * database; a SQLite ledger is one relay's file, with no other relay to share its timers with.
 */
final class ClusteredJobsRule {

    private ClusteredJobsRule() {
    }

    static void refuseOnSqlite(String command, Settings settings) throws UsageException {
        if (settings.isTrue(JOBS_CLUSTERED) && LedgerDialect.of(settings.get(DB)) != LedgerDialect.POSTGRESQL) {
            throw new UsageException(command + ": " + settings.origin(JOBS_CLUSTERED)
                    + " needs a PostgreSQL ledger (jdbc:postgresql://HOST[:PORT]/DB), not the SQLite file " + settings.get(DB)
                    + " (" + settings.origin(DB) + "): only relays on one PostgreSQL ledger share their timers");
        }
    }
}
