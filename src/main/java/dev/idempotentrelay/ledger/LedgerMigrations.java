package dev.idempotentrelay.ledger;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * The ledger's versioned schema: Flyway's migrations in {@code db/migration/sqlite} or {@code db/migration/postgresql}
 * (one SQL file per change, never edited once released), and the version a ledger is at, in Flyway's table
 * {@code flyway_schema_history}.
 * <ul>
 * <li>{@link #migrate} applies what is pending, each migration in a transaction of its own. A ledger made before
 * versioning (no history table, but a {@code tx}) is first recorded at the version its tables and columns match
 * ({@link #unversionedVersion}). On PostgreSQL each statement waits at most {@code lockTimeoutMs} for its lock
 * ({@code db/migrate-session/postgresql/afterConnect.sql}): a
 * migration that waits for a long reader never holds the relays' claims queued behind it for longer. A migration that
 * timed out is rolled back and tried again after a pause that doubles, up to {@code attempts} times; then the sessions
 * that held the ledger's tables are named.</li>
 * <li>{@link #requireCurrent} reads the version only (a SELECT of the history table, no lock on {@code tx}) and refuses
 * a ledger that is behind, one whose last migration failed, or one at a newer version whose migrations beyond this
 * build's are not all marked {@code expand} (they add only, so this build's statements still hold).</li>
 * </ul>
 */
public final class LedgerMigrations {

    /** What a migration's description begins with when it only adds to what earlier releases read and write. */
    public static final String EXPAND = "expand";

    /** PostgreSQL's SQLSTATE for a lock not granted within lock_timeout. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private final DataSource ledger;
    private final LedgerDialect dialect;
    private final long lockTimeoutMs;
    private final int attempts;
    private final String[] locations;

    public LedgerMigrations(DataSource ledger, LedgerDialect dialect, long lockTimeoutMs, int attempts) {
        this(ledger, dialect, lockTimeoutMs, attempts, location(dialect));
    }

    /**
     * Migrations from these folders: this build's ({@link #location}), and those of a release after it, as the next
     * release's {@code migrate} will find them beside this one's.
     */
    public LedgerMigrations(DataSource ledger, LedgerDialect dialect, long lockTimeoutMs, int attempts, String... locations) {
        this.ledger = ledger;
        this.dialect = dialect;
        this.lockTimeoutMs = lockTimeoutMs;
        this.attempts = attempts;
        this.locations = locations;
    }

    /** Only to read the version: no statement of it changes the schema. */
    public LedgerMigrations(DataSource ledger, LedgerDialect dialect) {
        this(ledger, dialect, 0, 1);
    }

    /** The folder of this dialect's migrations on the class path. */
    public static String location(LedgerDialect dialect) {
        return "classpath:db/migration/" + dialect.name().toLowerCase(Locale.ROOT);
    }

    private FluentConfiguration configuration() {
        return Flyway.configure(LedgerMigrations.class.getClassLoader())
                .dataSource(ledger)
                .locations(locations)
                .cleanDisabled(true)
                .validateMigrationNaming(true)
                .failOnMissingLocations(true)
                // the lock timeout of db/migrate-session/postgresql/afterConnect.sql, which only migrate runs
                .placeholders(Map.of("lock_timeout_ms", Long.toString(lockTimeoutMs)));
    }

    /**
     * The configuration of {@link #migrate}: on PostgreSQL each connection it opens first sets the lock timeout
     * ({@code db/migrate-session/postgresql/afterConnect.sql}); the other operations, which a relay runs on its own
     * pool, leave its connections' settings as they are.
     */
    private FluentConfiguration migrating() {
        FluentConfiguration configuration = configuration();
        return dialect == LedgerDialect.POSTGRESQL
                ? configuration.callbackLocations("classpath:db/migrate-session/postgresql") : configuration;
    }

    /**
     * Brings the ledger to this build's version and returns what was done: each migration applied, reported to
     * {@code out} as it is known, then the version reached. Harmless twice: on a current ledger nothing is applied.
     */
    public Migrated migrate(Consumer<String> out) throws SQLException, InterruptedException {
        String before = unversionedVersion();
        if (before != null) {
            configuration().baselineVersion(before)
                    .baselineDescription("ledger made before versioned migrations").load().baseline();
            out.accept("recorded the ledger made before versioned migrations at version " + before);
        }
        List<String> applied = new ArrayList<>();
        long pauseMs = Math.max(lockTimeoutMs, 500);
        for (int attempt = 1; ; attempt++) {
            try {
                MigrateResult result = migrating().load().migrate();
                for (MigrateOutput migration : result.migrations) {
                    String line = "applied version " + migration.version + ": " + migration.description;
                    applied.add(line);
                    out.accept(line);
                }
                String version = result.targetSchemaVersion != null ? result.targetSchemaVersion : currentVersion();
                return new Migrated(applied, version);
            } catch (FlywayException e) {
                if (!lockTimedOut(e)) {
                    throw e;
                }
                if (attempt >= attempts) {
                    throw new MigrationLockedException(attempt, lockTimeoutMs, blockers(), e);
                }
                out.accept("a migration waited " + lockTimeoutMs + " ms for a lock held by " + String.join("; ", blockers())
                        + ": rolled back, trying again in " + pauseMs + " ms (attempt " + (attempt + 1) + " of " + attempts + ")");
                Thread.sleep(pauseMs);
                pauseMs = Math.min(pauseMs * 2, 30_000);
            }
        }
    }

    /**
     * At a relay's start, on a thread of its own, so that Flyway's classes load and the ledger is read beside the loading
     * of the routes: {@link #requireCurrent}, and for the relay that owns a SQLite file, {@link #migrate} when it is
     * behind (one scan of the migrations for a ledger that is current, none to migrate).
     * The relay waits for the result before any route starts (Relay).
     */
    public CompletableFuture<Void> checkAtStart(boolean migrateIfBehind, Consumer<String> out) {
        CompletableFuture<Void> checked = new CompletableFuture<>();
        Thread check = new Thread(() -> {
            try {
                try {
                    requireCurrent();
                } catch (LedgerVersionException e) {
                    // behind this build (or empty): migrated, when the relay owns the file; any other refusal stands
                    if (!migrateIfBehind || !e.behind()) {
                        throw e;
                    }
                    migrate(out);
                }
                checked.complete(null);
            } catch (Exception | Error e) {
                checked.completeExceptionally(e);
            }
        }, "ledger-version");
        check.setDaemon(true);
        check.start();
        return checked;
    }

    /** What {@link #migrate} did: a line per migration applied, and the version the ledger is at. */
    public record Migrated(List<String> applied, String version) {
    }

    /**
     * Refuses a ledger this build cannot run on, with one line that says what to do: one behind this build (or empty),
     * one whose last migration failed, or one at a newer version whose newer migrations are not all marked
     * {@link #EXPAND}. Reads Flyway's history table and the class path; changes nothing.
     */
    public void requireCurrent() throws SQLException {
        MigrationInfoService info = configuration().load().info();
        MigrationInfo[] all = info.all();
        String needed = needed(all);
        if (Arrays.stream(all).noneMatch(m -> m.getState().isApplied())) {
            String before = unversionedVersion();
            throw new LedgerVersionException(before == null
                    ? "the ledger is empty (version 0), this relay needs " + needed + ": run `idempotent-relay migrate`"
                            + " as a role that may change the schema"
                    : behind(before + " (made before versioned migrations)", needed), true);
        }
        for (MigrationInfo migration : all) {
            if (migration.getState() == MigrationState.FAILED || migration.getState() == MigrationState.FUTURE_FAILED) {
                throw new LedgerVersionException("the ledger's migration to version " + migration.getVersion() + " ("
                        + migration.getDescription() + ") failed: see its row in flyway_schema_history, then run"
                        + " `idempotent-relay migrate` again");
            }
        }
        String current = info.current() == null ? "0" : String.valueOf(info.current().getVersion());
        if (info.pending().length > 0) {
            throw new LedgerVersionException(behind(current, needed), true);
        }
        for (MigrationInfo migration : all) {
            if (migration.getState() == MigrationState.FUTURE_SUCCESS
                    && !migration.getDescription().toLowerCase(Locale.ROOT).startsWith(EXPAND)) {
                throw new LedgerVersionException("the ledger is at version " + current + ", newer than this relay's " + needed
                        + ", and its migration to version " + migration.getVersion() + " (" + migration.getDescription()
                        + ") is not marked " + EXPAND + ": it may remove what this relay reads or writes; run a relay of that release");
            }
        }
    }

    private static String behind(String current, String needed) {
        return "the ledger is at version " + current + ", this relay needs " + needed + ": run `idempotent-relay migrate`"
                + " as a role that may change the schema";
    }

    /** The version this build's migrations end at: the highest of the migrations on its class path. */
    private static String needed(MigrationInfo[] all) {
        return Arrays.stream(all).filter(m -> m.getPhysicalLocation() != null && !m.getPhysicalLocation().isEmpty() && m.getVersion() != null)
                .map(MigrationInfo::getVersion).max(Comparable::compareTo).map(String::valueOf).orElse("0");
    }

    /** The version the ledger is at, "0" for an empty one. */
    public String currentVersion() {
        MigrationInfo current = configuration().load().info().current();
        return current == null ? "0" : String.valueOf(current.getVersion());
    }

    /**
     * The version that a ledger made before versioning matches, by its tables and columns, or null when the ledger has
     * Flyway's history table already or no {@code tx} at all. Each shipped ledger is told from the next by what that next
     * added: 1, the table {@code tx} alone; 2, the history ({@code tx.relay}); 3, {@code ledger_probe}; 4, the history's
     * key ({@code tx.history_key}). Quartz's tables (5) may be there or not: their migration makes them only where they
     * are missing.
     */
    String unversionedVersion() throws SQLException {
        try (Connection connection = ledger.getConnection()) {
            DatabaseMetaData catalog = connection.getMetaData();
            if (hasTable(catalog, connection, "flyway_schema_history") || !hasTable(catalog, connection, "tx")) {
                return null;
            }
            if (hasColumn(catalog, connection, "tx", "history_key")) {
                return "4";
            }
            if (hasTable(catalog, connection, "ledger_probe")) {
                return "3";
            }
            return hasColumn(catalog, connection, "tx", "relay") ? "2" : "1";
        }
    }

    private static boolean hasTable(DatabaseMetaData catalog, Connection connection, String table) throws SQLException {
        try (ResultSet tables = catalog.getTables(null, connection.getSchema(), table, null)) {
            return tables.next();
        }
    }

    private static boolean hasColumn(DatabaseMetaData catalog, Connection connection, String table, String column)
            throws SQLException {
        try (ResultSet columns = catalog.getColumns(null, connection.getSchema(), table, column)) {
            return columns.next();
        }
    }

    private static boolean lockTimedOut(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && LOCK_NOT_AVAILABLE.equals(sql.getSQLState())) {
                return true;
            }
            if (String.valueOf(cause.getMessage()).contains("SQL State  : " + LOCK_NOT_AVAILABLE)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The other sessions that hold a lock on a table of the ledger's schema in a transaction older than the lock
     * timeout, oldest first, five at most ({@code sql/postgresql/lock-holders.sql}): who they are and since when. A role
     * without pg_read_all_stats sees another role's session without its state or times: then those are "not shown".
     */
    List<String> blockers() {
        List<String> sessions = new ArrayList<>();
        try (Connection connection = ledger.getConnection();
                PreparedStatement statement = SqlFile.load("postgresql/lock-holders")
                        .prepare(connection, Map.of("lockTimeoutMs", lockTimeoutMs));
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                String since = rows.getString("since");
                sessions.add("pid " + rows.getInt("pid") + " (user " + rows.getString("usename")
                        + (rows.getString("application_name") == null || rows.getString("application_name").isEmpty() ? ""
                                : ", application " + rows.getString("application_name"))
                        + (rows.getString("client_addr") == null ? "" : ", from " + rows.getString("client_addr"))
                        + ", " + (rows.getString("state") == null ? "state not shown" : rows.getString("state")) + ")"
                        + " holding " + rows.getString("mode") + " on " + rows.getString("relname")
                        + (since == null ? ", since: not shown" : " in a transaction open since " + since + " UTC ("
                                + rows.getLong("seconds") + " s)"));
            }
        } catch (SQLException e) {
            sessions.add("sessions not readable: " + e.getMessage());
        }
        return sessions.isEmpty() ? List.of("a session that has ended since") : sessions;
    }

    /** A ledger this build does not run on, as one line that says what to do. */
    public static final class LedgerVersionException extends SQLException {
        private final boolean behind;

        LedgerVersionException(String message) {
            this(message, false);
        }

        LedgerVersionException(String message, boolean behind) {
            super(message);
            this.behind = behind;
        }

        /** Whether the ledger is behind this build (or empty): what migrate brings up to date. */
        public boolean behind() {
            return behind;
        }
    }

    /** A migration that waited out its lock timeout every time it was tried. */
    public static final class MigrationLockedException extends SQLException {
        MigrationLockedException(int attempts, long lockTimeoutMs, List<String> blockers, Throwable cause) {
            super("gave up after " + attempts + " attempts, each waiting at most " + lockTimeoutMs
                    + " ms for a lock on the ledger: held by " + String.join("; ", blockers), LOCK_NOT_AVAILABLE, cause);
        }
    }
}
