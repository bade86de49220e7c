package dev.idempotentrelay.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/** What SPEC section 7 asks of a refused command: exit 2, one line on stderr, no stack trace on either stream. */
public final class Refusal {

    private Refusal() {
    }

    /** A refusal whose stderr is exactly {@code line}. */
    public static void assertRefused(String line, int exitCode, List<String> out, List<String> err) {
        String seen = "exit " + exitCode + ", stdout " + out + ", stderr " + err;
        assertEquals(2, exitCode, seen);
        assertEquals(List.of(line), err, seen);
        assertNoStackTrace(out, err);
    }

    /** A refusal whose one line on stderr starts with {@code start}; returns that line. */
    public static String assertRefusedStarting(String start, int exitCode, List<String> out, List<String> err) {
        String seen = "exit " + exitCode + ", stdout " + out + ", stderr " + err;
        assertEquals(2, exitCode, seen);
        assertEquals(1, err.size(), seen);
        assertTrue(err.get(0).startsWith(start), seen);
        assertNoStackTrace(out, err);
        return err.get(0);
    }

    public static void assertRefused(String line, OneShot run) {
        assertRefused(line, run.exitCode, run.out, run.err);
    }

    public static void assertRefused(String line, JarProcess process) throws InterruptedException {
        assertRefused(line, process.exitCode(), process.output(), process.errors());
    }

    public static String assertRefusedStarting(String start, JarProcess process) throws InterruptedException {
        return assertRefusedStarting(start, process.exitCode(), process.output(), process.errors());
    }

    /** No line of a stack trace ("\tat ...") and no exception's name on stdout or stderr. */
    public static void assertNoStackTrace(List<String> out, List<String> err) {
        List<String> all = new ArrayList<>(out);
        all.addAll(err);
        for (String line : all) {
            assertTrue(!line.startsWith("\tat ") && !line.contains("Exception"), "a stack trace or an exception: " + line + " in " + all);
        }
    }
}
