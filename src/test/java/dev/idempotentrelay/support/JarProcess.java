package dev.idempotentrelay.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** {@code java -jar target/idempotent-relay.jar ...} as a separate process, started in a given folder. */
public final class JarProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "idempotent-relay.jar").toAbsolutePath();

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

    /** Starts the jar; stdout and stderr are read apart. */
    public static JarProcess start(Path workDir, String... args) throws IOException {
        return start(workDir, Map.of(), args);
    }

    /** Starts the jar with these environment variables added to this JVM's. */
    public static JarProcess start(Path workDir, Map<String, String> environment, String... args) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run the integration tests after 'package'");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
        builder.environment().putAll(environment);
        return new JarProcess(builder.start());
    }

    /** Runs the jar to its end and returns its exit code; the output stays readable. */
    public static JarProcess run(Path workDir, String... args) throws Exception {
        return run(workDir, Map.of(), args);
    }

    /** Runs the jar to its end with these environment variables added; the output stays readable. */
    public static JarProcess run(Path workDir, Map<String, String> environment, String... args) throws Exception {
        JarProcess process = start(workDir, environment, args);
        if (!process.process.waitFor(60, TimeUnit.SECONDS)) {
            process.close();
            throw new AssertionError("the jar did not finish within 60 s: " + String.join(" ", args));
        }
        for (Thread reader : process.readers) {
            reader.join(10_000);
        }
        return process;
    }

    public void awaitLine(String fragment, Duration limit) throws Exception {
        Await.until("the jar printed '" + fragment + "'; output so far: " + output, limit,
                () -> output.stream().anyMatch(l -> l.contains(fragment)) || !process.isAlive());
        if (output.stream().noneMatch(l -> l.contains(fragment))) {
            throw new AssertionError("the jar ended without printing '" + fragment + "': " + output);
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

    /** kill -9: no shutdown hook runs. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM and wait for the graceful stop. */
    public int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
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
