package dev.idempotentrelay.support;

import dev.idempotentrelay.cli.RelayCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Runs a command of the command line in this JVM, as {@code java -jar} would, and keeps what it printed. Its
 * environment holds no RELAY_* variable unless a test gives it some ({@link #withEnvironment}).
 */
public final class OneShot {

    public final int exitCode;
    public final List<String> out;
    public final List<String> err;

    private OneShot(int exitCode, String out, String err) {
        this.exitCode = exitCode;
        this.out = lines(out);
        this.err = lines(err);
    }

    public static OneShot run(String... args) {
        return withEnvironment(Map.of(), args);
    }

    public static synchronized OneShot withEnvironment(Map<String, String> environment, String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = RelayCommand.execute(args, environment);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        return new OneShot(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The last line printed on stdout: a one-shot command's summary. */
    public String summary() {
        return out.isEmpty() ? "" : out.get(out.size() - 1);
    }

    private static List<String> lines(String text) {
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\n"));
    }

    @Override
    public String toString() {
        return "exit " + exitCode + ", out " + out + ", err " + err;
    }
}
