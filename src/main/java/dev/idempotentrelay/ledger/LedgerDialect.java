package dev.idempotentrelay.ledger;

import java.util.Map;

/**
 * The two databases a ledger can live in, and all that differs between them in the statements the relay runs (the
 * schema's are the migrations of each, {@link LedgerMigrations}): the pieces of SQL
 * that the named SQL files use as property placeholders:
 * <ul>
 * <li>the database's own clock ({@code {{relay.ledger.now}}}, {@code {{relay.ledger.seconds-ago}}} with parameter
 * {@code :#ageSeconds}, {@code {{relay.ledger.days-ago}}} with {@code :#ageDays}), always UTC text in SQLite's
 * {@code datetime('now')} format. Every timestamp is written and every age measured on the database's clock, so that
 * relays with skewed clocks sharing one ledger cannot resend or purge early (SPEC section 6);</li>
 * <li>{@code {{relay.ledger.skip-locked}}}, which ends the choice of a batch of the timed work: on PostgreSQL rows
 * that another relay's batch holds are skipped, not waited for; SQLite has one writer at a time and no such clause;</li>
 * <li>{@code {{relay.ledger.bytes}}}, the ledger's size on disk as the database reports it without a scan.</li>
 * <li>{@code {{relay.ledger.dialect}}}, {@code sqlite} or {@code postgresql}: a statement that the two databases must
 * run differently, not only in such a piece, has a file of each in a folder of each, and the route names it by this
 * placeholder, {@code sql/{{relay.ledger.dialect}}/purge-done.sql}: what a route names is what runs.</li>
 * </ul>
 * {@code relay.db} picks the dialect: a {@code jdbc:postgresql:} URL or a SQLite file.
 */
public enum LedgerDialect {

    SQLITE(Map.of(
            "relay.ledger.dialect", "sqlite",
            "relay.ledger.now", "strftime('%Y-%m-%d %H:%M:%S', 'now')",
            "relay.ledger.seconds-ago", "strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || :#ageSeconds || ' seconds')",
            "relay.ledger.days-ago", "strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || :#ageDays || ' days')",
            "relay.ledger.skip-locked", "",
            "relay.ledger.bytes", "(SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size())")),

    POSTGRESQL(Map.of(
            "relay.ledger.dialect", "postgresql",
            "relay.ledger.now", "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')",
            "relay.ledger.seconds-ago", "to_char(now() AT TIME ZONE 'UTC' - make_interval(secs => :#ageSeconds), 'YYYY-MM-DD HH24:MI:SS')",
            "relay.ledger.days-ago", "to_char(now() AT TIME ZONE 'UTC' - make_interval(days => :#ageDays), 'YYYY-MM-DD HH24:MI:SS')",
            "relay.ledger.skip-locked", "FOR UPDATE SKIP LOCKED",
            "relay.ledger.bytes", "pg_database_size(current_database())"));

    public static final String POSTGRESQL_PREFIX = "jdbc:postgresql:";

    private final Map<String, String> sql;

    LedgerDialect(Map<String, String> sql) {
        this.sql = sql;
    }

    public static LedgerDialect of(String db) {
        return db.startsWith(POSTGRESQL_PREFIX) ? POSTGRESQL : SQLITE;
    }

    /** The ledger as a log line or message may name it: a password= parameter of a JDBC URL is left out. */
    public static String describe(String db) {
        return db.replaceAll("(?i)([?&;]password=)[^&;]*", "$1***");
    }

    /** The pieces of SQL of this database, by the property placeholder the SQL files use. */
    public Map<String, String> sql() {
        return sql;
    }
}
