package dev.idempotentrelay.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the tests, started from the machine's own server binaries (Debian's package
 * {@code postgresql}, which {@code .ci/run} installs): initdb into a temporary folder, then pg_ctl on a free loopback
 * port, fsync on (the default), trust authentication for user postgres. As root (as CI runs) it runs the server as
 * the user postgres, since initdb refuses root. {@link #shared()} is one server for the whole test JVM, each test
 * taking a new database of it; {@link #start()} is a server of the test's own, that it may stop and start again.
 * A server of its own can also be a primary with streaming standbys ({@link #standby}, made by pg_basebackup -R),
 * killed with SIGKILL ({@link #killPostmaster}), and a standby promoted ({@link #promote}).
 */
public final class Postgres implements AutoCloseable {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static Postgres shared;

    private final Path bin;
    private final Path dir;
    public final int port;
    private final List<String> settings;

    private Postgres(Path bin, Path dir, int port, List<String> settings) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.settings = settings;
    }

    /** The server of this test JVM, started on first use and stopped when the JVM exits. */
    public static synchronized Postgres shared() throws Exception {
        if (shared == null) {
            shared = start();
            Postgres server = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        }
        return shared;
    }

    /** A new server of the caller's own. */
    public static Postgres start() throws Exception {
        return start(List.of());
    }

    /**
     * A new server of the caller's own, started with these settings ({@code name=value}, as {@code -c} options: they
     * are not in its postgresql.conf, so a standby made from it does not inherit them).
     */
    public static Postgres start(List<String> settings) throws Exception {
        Path bin = binaries();
        Path dir = Files.createTempDirectory("relay-pg");
        Postgres server = new Postgres(bin, dir, Ports.free(), settings);
        if (isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()));
        }
        server.pg(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust", "-U", "postgres",
                "--no-sync", "-E", "UTF8"));
        server.startServer();
        return server;
    }

    /**
     * A streaming standby of this server, made by {@code pg_basebackup -R} (standby.signal and primary_conninfo
     * written), started on a port of its own with {@code cluster_name} = {@code name}, which is its application_name
     * on the primary (what synchronous_standby_names names). Returns once the primary sees it streaming.
     */
    public Postgres standby(String name) throws Exception {
        Path standbyDir = Files.createTempDirectory("relay-pg-standby");
        if (isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", standbyDir.toString()));
        }
        pg(List.of(bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                "-D", standbyDir.resolve("data").toString(), "-R", "-X", "stream", "--no-sync"));
        Postgres standby = new Postgres(bin, standbyDir, Ports.free(), List.of("cluster_name=" + name));
        standby.startServer();
        Await.until(name + " streams from the primary", java.time.Duration.ofSeconds(60),
                () -> query("SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + name + "' AND state = 'streaming'")
                        .equals("1"));
        return standby;
    }

    /** Sets a server setting (ALTER SYSTEM) and reloads the configuration; a null value resets it. */
    public void set(String setting, String value) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
            s.execute(value == null ? "ALTER SYSTEM RESET " + setting : "ALTER SYSTEM SET " + setting + " = '" + value + "'");
            s.execute("SELECT pg_reload_conf()");
        }
    }

    /**
     * Requires commits to wait for a synchronous standby named {@code standby} that never connects (or, with null, no
     * longer), and returns once they do (or no longer do). pg_reload_conf() only signals the server: the flag that makes
     * commits wait is set by its checkpointer once that process has read the file again, which on a busy machine comes
     * after the next claim, so the change is confirmed by a commit of its own.
     */
    public void requireAbsentStandby(String standby) throws Exception {
        set("synchronous_standby_names", standby);
        boolean waits = standby != null;
        Await.until("commits " + (waits ? "wait" : "no longer wait") + " for a synchronous standby",
                java.time.Duration.ofSeconds(30), () -> commitWaitsForAStandby() == waits);
    }

    /**
     * Whether a commit on this server waits for a synchronous standby: a transaction that writes (a transactional WAL
     * message, no table), committed on a thread of its own; seen in pg_stat_activity waiting for SyncRep, its wait is
     * cancelled (the commit then returns with a warning, made on this server alone).
     */
    private boolean commitWaitsForAStandby() throws Exception {
        String probe = "relay-test-commit-probe";
        java.util.concurrent.CompletableFuture<Void> commit = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try (Connection c = DriverManager.getConnection(url("postgres") + "&ApplicationName=" + probe);
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.execute("SELECT pg_logical_emit_message(true, 'relay-test', 'probe')");
                c.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        String waiting = "SELECT pid FROM pg_stat_activity WHERE application_name = '" + probe + "' AND wait_event = 'SyncRep'";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!commit.isDone()) {
            String pid = query(waiting);
            if (pid != null) {
                query("SELECT pg_cancel_backend(" + pid + ")");
                commit.get(30, TimeUnit.SECONDS);
                return true;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a commit neither completed nor waited for a standby in 30 s");
            }
            Thread.sleep(10);
        }
        commit.get();
        return false;
    }

    /** A statement on the database postgres, such as CREATE DATABASE. */
    public void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The first column of the first row of a query on the database postgres, as text. */
    public String query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** SIGKILL to the postmaster, as a crash of the primary: its backends end once they notice, nothing is shut down. */
    public void killPostmaster() throws Exception {
        long pid = Long.parseLong(Files.readAllLines(dir.resolve("data").resolve("postmaster.pid")).get(0).strip());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no postmaster " + pid));
        postmaster.destroyForcibly();
        postmaster.onExit().get(30, TimeUnit.SECONDS);
    }

    /** pg_ctl promote of a standby, returning once it is a primary. */
    public void promote() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60", "promote"));
    }

    /** A JDBC URL of a database of its own on this server, created empty. */
    public String newDatabase() throws SQLException {
        String name = "ledger_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return url(name);
    }

    /**
     * A JDBC URL of a new database of this server made from a plain {@code pg_dump} file, restored by psql as an
     * operator would ({@code psql -v ON_ERROR_STOP=1 -f}): the ledger of an earlier build, say.
     */
    public String restored(Path dump) throws Exception {
        String url = newDatabase();
        psql(url, dump);
        return url;
    }

    /** Runs SQL files on the database of {@code url} with psql, one after another, stopping at the first error. */
    public void psql(String url, Path... files) throws Exception {
        List<String> argv = new ArrayList<>(List.of(bin.resolve("psql").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-U", "postgres", "-d", databaseOf(url), "-q", "-v", "ON_ERROR_STOP=1"));
        for (Path file : files) {
            argv.addAll(List.of("-f", file.toString()));
        }
        run(argv);
    }

    /** What {@code pg_dump --schema-only} prints of the database of {@code url}, less the tables named. */
    public String schemaDump(String url, String... excludedTables) throws Exception {
        List<String> argv = new ArrayList<>(List.of(bin.resolve("pg_dump").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-U", "postgres", "--schema-only", "--no-owner", "--no-privileges"));
        for (String table : excludedTables) {
            argv.addAll(List.of("-T", table));
        }
        argv.add(databaseOf(url));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " failed");
        }
        return out;
    }

    private static String databaseOf(String url) {
        return url.substring(url.lastIndexOf('/') + 1, url.contains("?") ? url.indexOf('?') : url.length());
    }

    /**
     * A psql script run as a DBA runs one, as the superuser postgres on the database postgres:
     * {@code psql -X -v ON_ERROR_STOP=1 -v NAME=VALUE ... -f FILE}, its psql variables given (as {@code :'NAME'} in
     * the script), its meta-commands such as {@code \connect} obeyed, and the first error fails it.
     */
    public void psql(String script, Map<String, String> variables) throws Exception {
        Path file = Files.createTempFile("relay-psql", ".sql");
        try {
            Files.writeString(file, script);
            List<String> argv = new ArrayList<>(List.of(bin.resolve("psql").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
                    "-U", "postgres", "-d", "postgres", "-X", "-q", "-v", "ON_ERROR_STOP=1"));
            variables.forEach((name, value) -> argv.addAll(List.of("-v", name + "=" + value)));
            argv.addAll(List.of("-f", file.toString()));
            run(argv);
        } finally {
            Files.delete(file);
        }
    }

    /**
     * A base backup of this server in progress until closed, as a nightly backup job runs one: pg_basebackup at its
     * slowest rate (32 kB/s, minutes even for an empty cluster) into a folder of its own, which the server shows in
     * pg_stat_replication as a walsender in state 'backup'. Returns once it shows so; closing it ends pg_basebackup and
     * its walsender and deletes the folder.
     */
    public AutoCloseable baseBackup() throws Exception {
        Path target = Files.createTempDirectory("relay-pg-backup");
        Process backup = new ProcessBuilder(bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-U", "postgres", "-D", target.resolve("data").toString(), "-X", "fetch", "-c", "fast", "--max-rate=32k", "--no-sync")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String backups = "SELECT count(*) FROM pg_stat_replication WHERE state = 'backup'";
        AutoCloseable stop = () -> {
            backup.destroy();
            backup.waitFor(30, TimeUnit.SECONDS);
            query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_replication WHERE state = 'backup'");
            Await.until("the base backup's walsender ended", java.time.Duration.ofSeconds(30), () -> "0".equals(query(backups)));
            try (Stream<Path> files = Files.walk(target)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        };
        try {
            Await.until("pg_basebackup's walsender is in pg_stat_replication", java.time.Duration.ofSeconds(60),
                    () -> "1".equals(query(backups)) || !backup.isAlive());
            if (!backup.isAlive()) {
                throw new IllegalStateException("pg_basebackup ended (exit " + backup.exitValue() + ") before the test could see it");
            }
        } catch (Exception | AssertionError e) {
            stop.close();
            throw e;
        }
        return stop;
    }

    /** A JDBC URL of a database of its own on this server, its ledger migrated to this build's version. */
    public String newLedger() throws Exception {
        String url = newDatabase();
        LedgerFile.migrated(url);
        return url;
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    /** Stops the server fast (open connections are cut, as a crash or failover would), keeping its data. */
    public void stopServer() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "stop"));
    }

    public void startServer() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60",
                "-l", dir.resolve("server.log").toString(),
                "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c max_connections=200"
                        + settings.stream().map(setting -> " -c " + setting).collect(java.util.stream.Collectors.joining()), "start"));
    }

    @Override
    public void close() {
        try {
            stopServer();
        } catch (Exception e) {
            // already stopped
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder
        }
    }

    private void pg(List<String> command) throws Exception {
        List<String> argv = new ArrayList<>();
        if (isRoot()) {
            argv.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        argv.addAll(command);
        run(argv);
    }

    private static void run(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The newest PostgreSQL server binaries on this machine. */
    private static Path binaries() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                Path newest = versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                        .max(Comparator.comparing(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0"))))
                        .orElse(null);
                if (newest != null) {
                    return newest.resolve("bin");
                }
            }
        }
        throw new IllegalStateException("the PostgreSQL tests need a PostgreSQL server's binaries under /usr/lib/postgresql"
                + " (Debian: apt-get install postgresql; .ci/run installs it)");
    }
}
