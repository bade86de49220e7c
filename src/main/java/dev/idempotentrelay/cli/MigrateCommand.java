package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.RelayProperty.DB;
import static dev.idempotentrelay.cli.RelayProperty.DB_USER;
import static dev.idempotentrelay.cli.RelayProperty.MIGRATE_ATTEMPTS;
import static dev.idempotentrelay.cli.RelayProperty.MIGRATE_LOCK_TIMEOUT_MS;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.RelaySecrets;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerMigrations;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.camel.util.IOHelper;
import org.flywaydb.core.api.FlywayException;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteDataSource;

/**
 * {@code migrate [--config FILE] --db PATH|URL [--db-user U]}: brings the ledger to this build's version with its
 * versioned migrations ({@link LedgerMigrations}), prints each migration applied and the version reached; run again, it
 * applies nothing. On PostgreSQL it is the one command that changes the schema, run as a role that may (the relays
 * and the other commands run as one that may not); on SQLite {@code run} does the same at its start.
 */
final class MigrateCommand {

    private static final String COMMAND = "migrate";

    private MigrateCommand() {
    }

    static int run(String[] args, Map<String, String> environment) throws UsageException {
        Flags flags = Flags.parse(COMMAND, args, 1, Set.of("config", DB.flag, DB_USER.flag), Set.of());
        Settings settings = Settings.load(COMMAND, flags, environment);
        for (RelayProperty property : List.of(DB, DB_USER)) {
            if (flags.has(property.flag)) {
                settings.flag(property.flag, property.key, flags.get(property.flag, null));
            }
        }
        if (!settings.given(DB)) {
            throw new UsageException(COMMAND + ": --db is required (or relay.db in --config FILE, or "
                    + IOHelper.normalizeEnvironmentVariable(DB.key) + ")");
        }
        settings.check(COMMAND, List.of(DB, DB_USER, MIGRATE_LOCK_TIMEOUT_MS, MIGRATE_ATTEMPTS));
        String db = settings.get(DB);
        LedgerDialect dialect = LedgerDialect.of(db);
        LedgerMigrations migrations = new LedgerMigrations(dataSource(settings, dialect, environment), dialect,
                settings.number(MIGRATE_LOCK_TIMEOUT_MS), (int) settings.number(MIGRATE_ATTEMPTS));
        String ledger = LedgerDialect.describe(db);
        try {
            LedgerMigrations.Migrated migrated = migrations.migrate(line -> System.out.println(COMMAND + ": " + line));
            System.out.println(COMMAND + ": the ledger " + ledger + " is at version " + migrated.version()
                    + (migrated.applied().isEmpty() ? ": nothing to apply" : " (" + migrated.applied().size() + " applied)"));
            return 0;
        } catch (LedgerMigrations.MigrationLockedException e) {
            ErrorLine.print(COMMAND + ": " + ledger + ": " + e.getMessage());
            return 1;
        } catch (FlywayException e) {
            ErrorLine.print(COMMAND + ": " + ledger + ": a migration failed: " + Relay.rootMessage(e));
            return 1;
        } catch (SQLException e) {
            throw new UsageException(COMMAND + ": cannot use ledger " + ledger + ": " + Relay.rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ErrorLine.print(COMMAND + ": stopped while waiting to try again");
            return 1;
        }
    }

    /**
     * The ledger as the relay opens it: a SQLite file through relay.db.sqlite-url (WAL, synchronous=FULL, busy
     * timeout; the file made when missing), or the PostgreSQL database as relay.db.user with RELAY_DB_PASSWORD.
     */
    private static DataSource dataSource(Settings settings, LedgerDialect dialect, Map<String, String> environment) {
        String db = settings.get(DB);
        if (dialect == LedgerDialect.SQLITE) {
            SQLiteDataSource file = new SQLiteDataSource();
            file.setUrl(settings.text("relay.db.sqlite-url").replace("{{relay.db}}", db));
            return file;
        }
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setURL(db);
        String user = settings.get(DB_USER);
        if (user != null && !user.isBlank()) {
            database.setUser(user);
        }
        String password = RelaySecrets.from(environment).dbPassword();
        if (password != null) {
            database.setPassword(password);
        }
        database.setConnectTimeout(5);
        return database;
    }
}
