package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Postgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * schema.sql, schema-postgresql.sql and schema-quartz-postgresql.sql at the repository's top are the picture of the ledger
 * that a DBA reads; the migrations make it. Migrating an empty ledger gives exactly what the pictures describe, compared in
 * the databases' own catalogs: sqlite_master, and pg_dump --schema-only. Flyway's own table is the one difference.
 */
class SchemaPictureTest {

    @TempDir
    Path dir;

    /**
     * The purge's DELETE is a statement that its route names, on each database: the file of every ledger-write step of
     * purge.camel.yaml is read. SQLite's schema has no trigger that deletes a row of tx (issue 39: a trigger may record a
     * change, not make one of another kind). PostgreSQL's row trigger still deletes a row marked by the purge of a relay
     * made before 2026-12-05, which the previous release's schema file puts back at its start: no step of the purge
     * route marks a row on PostgreSQL, so this build never calls on it.
     */
    @Test
    void thePurgeRouteNamesItsDeleteAndNoTriggerDeletesALedgerRowForIt() throws Exception {
        String route = Files.readString(Path.of("routes/purge.camel.yaml"));
        for (String dialect : List.of("sqlite", "postgresql")) {
            // the files of this database's steps: a step that names the other database's file is behind its filter
            String other = dialect.equals("sqlite") ? "sql/postgresql/" : "sql/sqlite/";
            String named = route.replace("{{relay.ledger.dialect}}", dialect);
            List<String> deletes = new ArrayList<>();
            List<String> marks = new ArrayList<>();
            Matcher file = Pattern.compile("uri: \"?ledger-write:classpath:(sql/[a-z/-]+\\.sql)").matcher(named);
            while (file.find()) {
                if (file.group(1).startsWith(other)) {
                    continue;
                }
                String sql = Files.readString(Path.of(file.group(1)));
                if (sql.lines().anyMatch(l -> l.equals("DELETE FROM tx") || l.startsWith("DELETE FROM tx "))) {
                    deletes.add(file.group(1));
                }
                if (sql.contains("SET cause = 'purge'")) {
                    marks.add(file.group(1));
                }
            }
            assertEquals(List.of("sql/" + dialect + "/purge-done.sql"), deletes, dialect + ": the files of the purge's steps that DELETE FROM tx");
            assertEquals(dialect.equals("sqlite") ? List.of("sql/sqlite/mark-purge-batch.sql") : List.of(), marks,
                    dialect + ": the files of the purge's steps that mark a row for the purge");
        }
        assertFalse(Pattern.compile("DELETE FROM tx\\b").matcher(Files.readString(Path.of("schema.sql"))).find(),
                "schema.sql deletes a row of tx in a trigger");
    }

    @Test
    void migratingAnEmptySqliteLedgerGivesSchemaSql() throws Exception {
        Path migrated = dir.resolve("migrated.db");
        LedgerFile.migrated(migrated.toString());
        Path pictured = dir.resolve("pictured.db");
        Process sqlite = new ProcessBuilder("sqlite3", pictured.toString()).redirectInput(Path.of("schema.sql").toFile())
                .redirectErrorStream(true).start();
        String out = new String(sqlite.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(sqlite.waitFor(60, TimeUnit.SECONDS) && sqlite.exitValue() == 0, "sqlite3 < schema.sql: " + out);

        List<String> picture = sqliteCatalog(pictured);
        assertEquals(List.of("index tx_history_first_version", "index tx_history_key", "index tx_history_purged_by_key",
                "index tx_purge_batch", "index tx_state_updated_at", "table ledger_probe", "table tx", "table tx_history",
                "trigger tx_history_key_of_older_row", "trigger tx_history_of_change", "trigger tx_history_of_claim",
                "trigger tx_history_of_delete"), picture.stream().map(o -> o.substring(0, o.indexOf(':'))).toList(),
                "what schema.sql describes");
        assertEquals(picture, sqliteCatalog(migrated));
    }

    @Test
    void migratingAnEmptyPostgresqlLedgerGivesSchemaPostgresqlSqlAndQuartzs() throws Exception {
        Postgres server = Postgres.shared();
        String migrated = server.newLedger();
        String pictured = server.newDatabase();
        server.psql(pictured, Path.of("schema-postgresql.sql"), Path.of("schema-quartz-postgresql.sql"));

        String picture = significant(server.schemaDump(pictured));
        assertTrue(picture.contains("CREATE TABLE public.tx ("), picture);
        assertTrue(picture.contains("CREATE TABLE public.qrtz_triggers ("), picture);
        assertEquals(picture, significant(server.schemaDump(migrated, "flyway_schema_history")));
    }

    /**
     * Each object of the file but Flyway's, "type name: its SQL" with the comments and the layout taken out (an ALTER TABLE
     * ... ADD COLUMN appends its column to the table's SQL as written, after a comma), and each table's columns as SQLite
     * reports them (name, type, not null, default, key).
     */
    private static List<String> sqliteCatalog(Path file) throws Exception {
        List<String> objects = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            List<String[]> rows = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'flyway%'"
                    + " AND name NOT LIKE 'sqlite_%' ORDER BY type, name")) {
                while (r.next()) {
                    rows.add(new String[] {r.getString(1), r.getString(2), r.getString(3)});
                }
            }
            for (String[] row : rows) {
                String columns = "";
                if (row[0].equals("table")) {
                    try (ResultSet r = s.executeQuery("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('" + row[1] + "')")) {
                        List<String> each = new ArrayList<>();
                        while (r.next()) {
                            each.add(r.getString(1) + " " + r.getString(2) + " " + r.getString(3) + " " + r.getString(4) + " " + r.getString(5));
                        }
                        columns = " " + each;
                    }
                }
                objects.add(row[0] + " " + row[1] + ": " + layoutFree(row[2]) + columns);
            }
        }
        return objects;
    }

    private static String layoutFree(String sql) {
        return sql.lines().map(line -> line.replaceAll("--.*$", "")).collect(Collectors.joining(" "))
                .replaceAll("\\s+", " ").replaceAll(" ?([(),;]) ?", "$1").strip().toLowerCase(Locale.ROOT);
    }

    /** pg_dump's statements, without its comments, its session settings and its \restrict lines. */
    private static String significant(String dump) {
        return dump.lines().filter(line -> !line.startsWith("--") && !line.startsWith("\\") && !line.startsWith("SET ")
                && !line.startsWith("SELECT pg_catalog.set_config") && !line.isBlank()).collect(Collectors.joining("\n"));
    }
}
