import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What the SQLite ledger's writes cost, without the relay around them: for each schema file named, a fresh ledger file
 * with it, then the writes of TRANSFERS new transfers as the relay's group-commit writer makes them (each transaction
 * the claims of GROUP new GUIDs, sql/claim-new-guid.sql, and the results of the GROUP claimed in the one before,
 * sql/record-done.sql; a PASSIVE checkpoint every 500 rows written, relay.db.checkpoint-writes), on one thread as the
 * writer's, after a shorter unprinted run of the first file for the JIT. Prints per transfer the wall time and the thread's CPU (SQLite runs on the calling thread; the waits for
 * fsync are off it). Compare schema files in one run, by turns: the machine's noise moves the wall time far more than
 * the CPU.
 *
 * <pre>
 * java -cp ~/.m2/repository/org/xerial/sqlite-jdbc/3.54.1.0/sqlite-jdbc-3.54.1.0.jar scripts/ledger/LedgerWriteCost.java \
 *     30000 16 schema.sql /tmp/schema-without-history.sql
 * </pre>
 * With a PostgreSQL URL first (ending in "/", the database names follow it), the PostgreSQL schema files instead, see
 * {@link #postgresql}:
 * <pre>
 * java -cp ~/.m2/repository/org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar scripts/ledger/LedgerWriteCost.java \
 *     jdbc:postgresql://127.0.0.1:55999/ 300000 20000 schema-postgresql.sql /tmp/schema-postgresql-without-history.sql
 * </pre>
 */
public class LedgerWriteCost {

    private static final int CHECKPOINT_WRITES = 500;

    public static void main(String[] args) throws Exception {
        if (args[0].startsWith("jdbc:postgresql:")) {
            postgresql(args);
            return;
        }
        int transfers = Integer.parseInt(args[0]);
        int group = Integer.parseInt(args[1]);
        String claim = statement("sql/claim-new-guid.sql", SQLITE_NOW);
        String record = statement("sql/record-done.sql", SQLITE_NOW);
        run(Path.of(args[2]), transfers / 4, group, claim, record, false); // the JIT's turn, not printed
        for (int i = 2; i < args.length; i++) {
            run(Path.of(args[i]), transfers, group, claim, record, true);
        }
    }

    private static final String SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%S', 'now')";
    private static final String POSTGRESQL_NOW = "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')";

    /** A named SQL file of the relay as the writer prepares it: placeholders resolved, :#name as ?. */
    private static String statement(String file, String now) throws Exception {
        StringBuilder sql = new StringBuilder();
        for (String line : Files.readAllLines(Path.of(file))) {
            if (!line.startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        return sql.toString()
                .replace("{{relay.ledger.now}}", now)
                .replace("{{relay.ledger.relay}}", "'bank-a1:9100'")
                .replaceAll(":#\\w+", "?");
    }

    private static void run(Path schema, int transfers, int group, String claim, String record, boolean print) throws Exception {
        Path db = Files.createTempFile("ledger-write-cost", ".db");
        Files.delete(db);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db
                + "?journal_mode=WAL&synchronous=FULL&busy_timeout=5000&jdbc.get_generated_keys=false");
                Statement st = c.createStatement()) {
            st.execute("PRAGMA wal_autocheckpoint = 0");
            for (String ddl : statements(Files.readString(schema))) {
                try {
                    st.execute(ddl);
                } catch (SQLException e) {
                    if (!String.valueOf(e.getMessage()).contains("duplicate column name")) {
                        throw e;
                    }
                }
            }
            PreparedStatement claims = c.prepareStatement(claim);
            PreparedStatement records = c.prepareStatement(record);
            byte[] request = new byte[220];
            byte[] reply = new byte[120];
            Random random = new Random(42);
            random.nextBytes(request);
            random.nextBytes(reply);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            List<String> claimed = new ArrayList<>();
            long rows = 0;
            int done = 0;
            long cpu = threads.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            while (done < transfers) {
                List<String> guids = new ArrayList<>();
                st.execute("BEGIN IMMEDIATE");
                for (int i = 0; i < group; i++) {
                    guids.add(claim(claims, random, request));
                }
                for (String guid : claimed) {
                    record(records, guid, reply);
                }
                st.execute("COMMIT");
                rows += guids.size() + claimed.size();
                done += claimed.size();
                claimed = guids;
                if (rows >= CHECKPOINT_WRITES) {
                    st.execute("PRAGMA wal_checkpoint(PASSIVE)");
                    rows = 0;
                }
            }
            cpu = threads.getCurrentThreadCpuTime() - cpu;
            wall = System.nanoTime() - wall;
            if (print) {
                System.out.printf("%-40s %,d transfers: %.1f us wall, %.1f us CPU per transfer; ledger %,d KiB%n", schema, done,
                    wall / 1e3 / done, cpu / 1e3 / done, (Files.size(db) + Files.size(Path.of(db + "-wal"))) >> 10);
            }
        } finally {
            for (String suffix : new String[] {"", "-wal", "-shm"}) {
                Files.deleteIfExists(Path.of(db + suffix));
            }
        }
    }

    /**
     * PostgreSQL: for each schema file a new database on the server at URL (user postgres), PREFILL transfers claimed
     * and made DONE in bulk through the schema's triggers (indexes of a ledger in use, not an empty one), a CHECKPOINT,
     * then TRANSFERS claims and results each in its own transaction, as the relay writes on PostgreSQL, on one
     * connection. Prints per transfer the WAL written (pg_current_wal_insert_lsn), the server process's CPU (from /proc:
     * run it on the server's machine) and the wall time; the database is dropped after.
     */
    private static void postgresql(String[] args) throws Exception {
        String url = args[0];
        int prefill = Integer.parseInt(args[1]);
        int transfers = Integer.parseInt(args[2]);
        String claim = statement("sql/claim-new-guid.sql", POSTGRESQL_NOW);
        String record = statement("sql/record-done.sql", POSTGRESQL_NOW);
        for (int i = 3; i < args.length; i++) {
            String database = "ledger_write_cost_" + i;
            try (Connection admin = DriverManager.getConnection(url + "postgres", "postgres", "")) {
                admin.createStatement().execute("DROP DATABASE IF EXISTS " + database);
                admin.createStatement().execute("CREATE DATABASE " + database);
            }
            try (Connection c = DriverManager.getConnection(url + database, "postgres", ""); Statement st = c.createStatement()) {
                for (String ddl : postgresqlStatements(Files.readString(Path.of(args[i])))) {
                    st.execute(ddl);
                }
                st.execute("INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause)"
                        + " SELECT upper(md5(g::text)), 'TR01', 'SENT', decode(repeat('ab', 220), 'hex'), 1, '2026-12-01 00:00:00',"
                        + " '2026-12-01 00:00:00', 'bank-a1:9100', 'channel' FROM generate_series(1, " + prefill + ") g");
                st.execute("UPDATE tx SET state = 'DONE', rsp_code = '0000', response = decode(repeat('cd', 120), 'hex')");
                st.execute("VACUUM ANALYZE");
                st.execute("CHECKPOINT");
                PreparedStatement claims = c.prepareStatement(claim);
                PreparedStatement records = c.prepareStatement(record);
                byte[] request = new byte[220];
                byte[] reply = new byte[120];
                Random random = new Random(42);
                String lsn;
                long pid;
                try (ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn()::text, pg_backend_pid()")) {
                    rs.next();
                    lsn = rs.getString(1);
                    pid = rs.getLong(2);
                }
                long cpu = processCpuNanos(pid);
                long wall = System.nanoTime();
                for (int n = 0; n < transfers; n++) {
                    record(records, claim(claims, random, request), reply);
                }
                wall = System.nanoTime() - wall;
                cpu = processCpuNanos(pid) - cpu;
                try (ResultSet rs = st.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '" + lsn + "')")) {
                    rs.next();
                    System.out.printf("%-40s %,d transfers after %,d: %.0f bytes of WAL, %.0f us server CPU, %.0f us wall per transfer%n",
                            args[i], transfers, prefill, rs.getDouble(1) / transfers, cpu / 1e3 / transfers, wall / 1e3 / transfers);
                }
            }
            try (Connection admin = DriverManager.getConnection(url + "postgres", "postgres", "")) {
                admin.createStatement().execute("DROP DATABASE " + database);
            }
        }
    }

    /** Claims a new GUID (sql/claim-new-guid.sql) and returns it. */
    private static String claim(PreparedStatement claims, Random random, byte[] request) throws SQLException {
        String guid = String.format("%016X%016X", random.nextLong(), random.nextLong());
        claims.setString(1, guid);
        claims.setString(2, "TR01");
        claims.setBytes(3, request);
        claims.executeUpdate();
        return guid;
    }

    /** Records the core's 0000 for a claimed GUID (sql/record-done.sql). */
    private static void record(PreparedStatement records, String guid, byte[] reply) throws SQLException {
        records.setString(1, "0000");
        records.setBytes(2, reply);
        records.setString(3, guid);
        records.executeUpdate();
    }

    /** A process's user and system CPU (/proc/PID/stat, in clock ticks of 10 ms), in nanoseconds. */
    private static long processCpuNanos(long pid) throws Exception {
        String[] fields = Files.readString(Path.of("/proc/" + pid + "/stat")).replaceAll("^.*\\) ", "").split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
    }

    /** A PostgreSQL schema file's statements: split at semicolons, but for those inside a function's $$ body. */
    private static List<String> postgresqlStatements(String schema) {
        List<String> statements = new ArrayList<>();
        StringBuilder statement = new StringBuilder();
        for (String part : schema.replaceAll("(?m)^--.*$", "").split(";")) {
            statement.append(part);
            if ((statement.toString().split("\\$\\$", -1).length - 1) % 2 == 1) {
                statement.append(';');
                continue;
            }
            if (!statement.toString().isBlank()) {
                statements.add(statement.toString());
            }
            statement.setLength(0);
        }
        return statements;
    }

    /** A schema file's statements: split at semicolons, but for those inside a trigger's BEGIN ... END. */
    private static List<String> statements(String schema) {
        List<String> statements = new ArrayList<>();
        StringBuilder statement = new StringBuilder();
        boolean trigger = false;
        for (String line : schema.split("\n")) {
            String code = line.strip();
            if (code.startsWith("--") || code.isEmpty()) {
                continue;
            }
            statement.append(line).append('\n');
            trigger |= code.toUpperCase().startsWith("CREATE TRIGGER");
            if (trigger ? code.equalsIgnoreCase("END;") : code.endsWith(";")) {
                statements.add(statement.toString());
                statement.setLength(0);
                trigger = false;
            }
        }
        return statements;
    }
}
