package dev.idempotentrelay.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar idempotent-relay.jar ...} as a separate process, as a user runs it on another machine: the
 * packaged jar is copied into the given folder (alone there when the folder was empty) and run from that folder,
 * with nothing else on its class path. The process inherits no {@code RELAY_*} variable of the test's environment;
 * a test sets those it means with {@link #in(Path)}.
 */
public final class JarProcess implements AutoCloseable {

    /** The jar that {@code mvn package} built. */
    public static final Path BUILT_JAR = Path.of("target", "idempotent-relay.jar").toAbsolutePath();
    /** Its name in the folder it runs from. */
    public static final String JAR_NAME = "idempotent-relay.jar";
    /** The launcher script of the repository, and its name beside the jar (the layout of an installation). */
    public static final Path LAUNCHER = Path.of("bin", "idempotent-relay").toAbsolutePath();
    public static final String LAUNCHER_NAME = "idempotent-relay";

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    private JarProcess(Process process) {
        this.process = process;
        readers.add(reader(process.getInputStream(), output));
        readers.add(reader(process.getErrorStream(), errors));
    }

    private static Thread reader(java.io.InputStream stream, List<String> lines) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "jar-output");
        reader.setDaemon(true);
        reader.start();
        return reader;
    }

    /** Starts the jar in {@code workDir}; stdout and stderr are read apart. */
    public static JarProcess start(Path workDir, String... args) throws IOException {
        return in(workDir).start(args);
    }

    /** Starts the jar in {@code workDir} with these environment variables added. */
    public static JarProcess start(Path workDir, Map<String, String> environment, String... args) throws IOException {
        Launch launch = in(workDir);
        environment.forEach(launch::env);
        return launch.start(args);
    }

    /** Runs the jar in {@code workDir} to its end; the exit code and the output stay readable. */
    public static JarProcess run(Path workDir, String... args) throws Exception {
        return in(workDir).run(args);
    }

    /** Runs the jar in {@code workDir} to its end with these environment variables added. */
    public static JarProcess run(Path workDir, Map<String, String> environment, String... args) throws Exception {
        Launch launch = in(workDir);
        environment.forEach(launch::env);
        return launch.run(args);
    }

    /** A jar process to be started in {@code workDir}, with environment variables or as an unprivileged user. */
    public static Launch in(Path workDir) {
        return new Launch(workDir);
    }

    /** The packaged jar in {@code workDir}, copied there if it is not yet. */
    public static Path copyInto(Path workDir) throws IOException {
        if (!Files.isRegularFile(BUILT_JAR)) {
            throw new IllegalStateException(BUILT_JAR + " is missing: run the integration tests after 'package'");
        }
        return copyInto(workDir, BUILT_JAR);
    }

    /** The jar {@code source} in {@code workDir} under the packaged jar's name, copied there if no jar is there yet. */
    private static Path copyInto(Path workDir, Path source) throws IOException {
        Path jar = workDir.resolve(JAR_NAME);
        if (!Files.exists(jar)) {
            Files.copy(source, jar);
        }
        return jar;
    }

    /** How a jar process is started: its folder, its RELAY_* variables, its user. */
    public static final class Launch {
        private final Path workDir;
        private Path jar;
        private final Map<String, String> env = new LinkedHashMap<>();
        private boolean unprivileged;
        private boolean launcher;
        private Duration limit = Duration.ofSeconds(60);

        private Launch(Path workDir) {
            this.workDir = workDir;
        }

        public Launch env(String name, String value) {
            env.put(name, value);
            return this;
        }

        /**
         * Runs the jar as a user for whom file permissions hold: the test's own user, or {@code nobody} when the
         * tests run as root (root may write a read-only folder). The folder and the files the process reads must be
         * readable by others then.
         */
        public Launch unprivileged() {
            unprivileged = true;
            return this;
        }

        /** How long {@link #run} waits for the process to end (60 s unless told). */
        public Launch within(Duration limit) {
            this.limit = limit;
            return this;
        }

        /**
         * Runs this jar instead of the one {@code mvn package} built, such as a previous release's: copied into the folder
         * under the same name, so a folder holds one jar or the other.
         */
        public Launch jar(Path jar) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing");
            }
            this.jar = jar;
            return this;
        }

        /** Starts the launcher ({@code bin/idempotent-relay}, copied beside the jar) instead of {@code java -jar}. */
        public Launch withLauncher() {
            launcher = true;
            return this;
        }

        public JarProcess start(String... args) throws IOException {
            Path jar = this.jar == null ? copyInto(workDir) : copyInto(workDir, this.jar);
            List<String> command = new ArrayList<>();
            if (unprivileged && Unprivileged.needed()) {
                command.addAll(Unprivileged.prefix());
            }
            if (launcher) {
                Path script = workDir.resolve(LAUNCHER_NAME);
                if (!Files.exists(script)) {
                    Files.copy(LAUNCHER, script);
                }
                command.add(script.toString());
            } else {
                command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                command.add("-jar");
                command.add(jar.getFileName().toString());
            }
            command.addAll(List.of(args));
            ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
            builder.environment().keySet().removeIf(name -> name.startsWith("RELAY_") || name.equals("CLASSPATH"));
            builder.environment().putAll(env);
            return new JarProcess(builder.start());
        }

        public JarProcess run(String... args) throws Exception {
            JarProcess process = start(args);
            if (!process.process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.close();
                throw new AssertionError("the jar did not finish within " + limit + ": " + String.join(" ", args));
            }
            for (Thread reader : process.readers) {
                reader.join(10_000);
            }
            return process;
        }
    }

    public void awaitLine(String fragment, Duration limit) throws Exception {
        Await.until("the jar printed '" + fragment + "'; output so far: " + output, limit,
                () -> output.stream().anyMatch(l -> l.contains(fragment)) || !process.isAlive());
        if (output.stream().noneMatch(l -> l.contains(fragment))) {
            throw new AssertionError("the jar ended without printing '" + fragment + "': " + output + ", stderr " + errors);
        }
    }

    /** The command line the operating system shows for the process (as ps does), or empty when it does not say. */
    public java.util.Optional<String> commandLine() {
        return process.info().commandLine();
    }

    public int exitCode() throws InterruptedException {
        process.waitFor(60, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /** What a finished process printed on stdout. */
    public List<String> output() {
        return List.copyOf(output);
    }

    /** What a finished process printed on stderr. */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Whether the process still runs (it was not stopped, and did not end on its own). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** kill -9: no shutdown hook runs. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM and wait for the graceful stop, as long as systemd waits by default (TimeoutStopSec, 90 s); past that a
     * kill -9, as systemd would, and the test fails on its exit code.
     */
    public int terminate() throws InterruptedException {
        // the signal through the process's handle: Process.destroy() also closes this side of its pipes, so that what it
        // prints while it stops (a one-shot command's summary) would be lost
        process.toHandle().destroy();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        // what it printed to its end, as after run()
        for (Thread reader : readers) {
            reader.join(10_000);
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
