package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked example of docs/security.md, run as the document has a reader run it: its keytool commands, as written,
 * make the CA, the relay's and MOB1's certificates; the relay starts with mutual TLS as its run command says (on free
 * ports here, not 9100 and 9201); each send of the transcripts prints the lines the document shows and exits as it
 * says; the E403 leaves the core's count at one; and the relay logs the two handshake failures the document shows.
 */
class SecurityExampleIT {

    private static final Path DOCUMENT = Path.of("docs/security.md");
    private static final String JAR_COMMAND = "java -jar target/idempotent-relay.jar ";
    private static final Pattern EXPORT = Pattern.compile("^export (\\w+)='([^']*)'$");

    @TempDir
    Path dir;

    @Test
    void theKeytoolCommandsMakeCertificatesWithWhichTheTranscriptsHold() throws Exception {
        List<List<String>> blocks = codeBlocks(Files.readAllLines(DOCUMENT));
        List<String> script = blocks.stream().filter(b -> !b.isEmpty() && b.get(0).startsWith("export RELAY_TLS_KEYSTORE_PASSWORD"))
                .findFirst().orElseThrow(() -> new AssertionError("no keytool block in " + DOCUMENT));

        // the block as written, but the relay's start, which this test makes on free ports
        Map<String, String> passwords = new LinkedHashMap<>();
        List<String> keytool = new ArrayList<>();
        String run = null;
        for (String line : script) {
            Matcher export = EXPORT.matcher(line);
            if (export.matches()) {
                passwords.put(export.group(1), export.group(2));
            }
            if (line.startsWith(JAR_COMMAND + "run ")) {
                run = line.substring(JAR_COMMAND.length());
            } else {
                keytool.add(line);
            }
        }
        assertEquals(2, passwords.size(), "the block exports both passwords");
        bash(String.join("\n", keytool));
        assertTrue(Files.isRegularFile(dir.resolve("tls/relay.p12")) && Files.isRegularFile(dir.resolve("tls/mob1.p12")));

        int port = Ports.free();
        int corePort = Ports.free();
        List<String> runArgs = words(run);
        runArgs.addAll(List.of("--port", Integer.toString(port), "--core", "http://localhost:" + corePort,
                "--admin-port", Integer.toString(Ports.free()), "--no-jobs"));
        try (JarProcess relay = JarProcess.start(dir, passwords, runArgs.toArray(String[]::new))) {
            relay.awaitLine("listening on port " + port, java.time.Duration.ofSeconds(60));

            int sends = 0;
            for (List<String> block : blocks) {
                for (Transcript transcript : transcripts(block)) {
                    List<String> args = words(transcript.command.substring(JAR_COMMAND.length()));
                    args.addAll(List.of("--port", Integer.toString(port)));
                    JarProcess send = JarProcess.run(dir, passwords, args.toArray(String[]::new));
                    List<String> printed = new ArrayList<>(send.output());
                    printed.addAll(send.errors());
                    for (String expected : transcript.lines) {
                        // a line that ends in "..." shows how a line starts
                        String line = expected.replace("localhost:9100", "localhost:" + port);
                        boolean found = line.endsWith("...")
                                ? printed.stream().anyMatch(p -> p.startsWith(line.substring(0, line.length() - 3)))
                                : printed.contains(line);
                        assertTrue(found, transcript.command + "\nshould print: " + line + "\nprinted: " + printed);
                    }
                    boolean refused = transcript.lines.get(0).startsWith("idempotent-relay: send: ");
                    assertEquals(refused ? 1 : 0, send.exitCode(), transcript.command + ": " + printed);
                    sends++;
                }
            }
            assertEquals(4, sends, "the four sends of the document");
            assertEquals(1, new CoreClient("http://localhost:" + corePort).calls(), "the E403 reached the core");

            for (List<String> block : blocks) {
                for (String line : block) {
                    int failed = line.indexOf("TLS handshake failed: ");
                    if (line.contains("TlsFailureLogger") && failed > 0) {
                        String why = line.substring(failed);
                        relay.awaitLine(why, java.time.Duration.ofSeconds(10));
                    }
                }
            }
        }
    }

    /** A command of a transcript ({@code $ java -jar ...}, continued over lines ending in a backslash) and what it prints. */
    private record Transcript(String command, List<String> lines) {
    }

    private static List<Transcript> transcripts(List<String> block) {
        List<Transcript> transcripts = new ArrayList<>();
        for (int i = 0; i < block.size(); i++) {
            if (!block.get(i).startsWith("$ " + JAR_COMMAND + "send ")) {
                continue;
            }
            StringBuilder command = new StringBuilder(block.get(i).substring(2));
            while (command.toString().endsWith("\\")) {
                command.setLength(command.length() - 1);
                command.append(' ').append(block.get(++i).strip());
            }
            List<String> lines = new ArrayList<>();
            while (i + 1 < block.size() && !block.get(i + 1).startsWith("$ ")) {
                String line = block.get(++i);
                if (!line.equals("...")) {
                    lines.add(line);
                }
            }
            assertFalse(lines.isEmpty(), "a transcript without output: " + command);
            transcripts.add(new Transcript(command.toString(), lines));
        }
        return transcripts;
    }

    /** The fenced code blocks of a Markdown file, each as its lines. */
    private static List<List<String>> codeBlocks(List<String> lines) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = null;
        for (String line : lines) {
            if (line.startsWith("```")) {
                if (block == null) {
                    block = new ArrayList<>();
                } else {
                    blocks.add(block);
                    block = null;
                }
            } else if (block != null) {
                block.add(line);
            }
        }
        return blocks;
    }

    /** A command line split into words as the shell would, for double quotes and runs of spaces. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        Matcher m = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(line);
        while (m.find()) {
            words.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return words;
    }

    /** Runs a shell script in the test's folder, with the JDK's keytool on the PATH; fails with its output. */
    private void bash(String script) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-e", "-c", script).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + builder.environment().get("PATH"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the keytool commands did not finish");
        assertEquals(0, process.exitValue(), "the keytool commands of " + DOCUMENT + " failed:\n" + output);
    }
}
