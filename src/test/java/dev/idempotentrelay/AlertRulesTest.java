package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.idempotentrelay.support.MarkdownFile;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules an operator installs, ops/prometheus/idempotent-relay-rules.yml, as Prometheus reads them:
 * {@code promtool check rules} accepts them, and {@code promtool check config} the example scrape configuration beside
 * them, {@code promtool test rules} passes their unit tests (the *-test.yml files beside them), every alert has a test case that fires it and one in which it stays quiet, and every alert has a
 * summary, a description and a runbook_url that names its entry in docs/operations.md. promtool is Debian's
 * package prometheus, which .ci/run installs.
 */
class AlertRulesTest {

    private static final Path FOLDER = Path.of("ops/prometheus");
    private static final Path RULES = FOLDER.resolve("idempotent-relay-rules.yml");
    private static final Path RUNBOOK = Path.of("docs/operations.md");
    /** The base every runbook_url starts with, which docs/operations.md tells the operator to replace. */
    private static final String RUNBOOK_BASE = "https://git.example.invalid/idempotent-relay/blob/main";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        promtool("check", "rules", RULES.toString());
    }

    /** The example scrape configuration of docs/operations.md, beside the rules and a token file as an operator puts them. */
    @Test
    void promtoolAcceptsTheExampleConfigurationWithTheRulesBesideIt(@TempDir Path etc) throws Exception {
        Files.copy(FOLDER.resolve("prometheus.yml"), etc.resolve("prometheus.yml"));
        Files.copy(RULES, etc.resolve(RULES.getFileName()));
        Files.writeString(etc.resolve("idempotent-relay-admin-token"), "a-token-of-the-test");
        promtool("check", "config", etc.resolve("prometheus.yml").toString());
    }

    @Test
    void promtoolPassesEveryUnitTestOfTheRules() throws Exception {
        List<Path> tests = unitTestFiles();
        assertFalse(tests.isEmpty(), "no *-test.yml in " + FOLDER);
        List<String> argv = new ArrayList<>(List.of("test", "rules"));
        tests.forEach(t -> argv.add(t.toString()));
        promtool(argv.toArray(String[]::new));
    }

    @Test
    void everyAlertHasACaseThatFiresItAndOneInWhichItStaysQuiet() throws Exception {
        Map<String, int[]> cases = new TreeMap<>();
        alerts().keySet().forEach(name -> cases.put(name, new int[2]));
        for (Path file : unitTestFiles()) {
            for (JsonNode test : YAML.readTree(file.toFile()).path("tests")) {
                for (JsonNode expectation : test.path("alert_rule_test")) {
                    int[] counts = cases.get(expectation.path("alertname").asText());
                    if (counts == null) {
                        fail(file + ": a test of an alert the rules do not have: " + expectation.path("alertname").asText());
                    }
                    counts[expectation.path("exp_alerts").isEmpty() ? 1 : 0]++;
                }
            }
        }
        List<String> missing = new ArrayList<>();
        cases.forEach((name, counts) -> {
            if (counts[0] == 0) {
                missing.add(name + " has no case that fires it");
            }
            if (counts[1] == 0) {
                missing.add(name + " has no case in which it stays quiet");
            }
        });
        assertEquals(List.of(), missing);
    }

    @Test
    void everyAlertHasASummaryADescriptionAndARunbookUrlNamingItsEntryInTheOperationsDocument() throws Exception {
        Map<String, JsonNode> alerts = alerts();
        assertFalse(alerts.isEmpty());
        TreeSet<String> headings = new TreeSet<>(MarkdownFile.read(RUNBOOK).anchors());
        List<String> problems = new ArrayList<>();
        alerts.forEach((name, rule) -> {
            JsonNode annotations = rule.path("annotations");
            for (String key : List.of("summary", "description", "runbook_url")) {
                if (annotations.path(key).asText().isBlank()) {
                    problems.add(name + " has no " + key);
                }
            }
            String url = annotations.path("runbook_url").asText();
            String expected = RUNBOOK_BASE + "/" + RUNBOOK + "#" + MarkdownFile.slug(name);
            if (!url.equals(expected)) {
                problems.add(name + ": runbook_url " + url + ", expected " + expected);
            }
            if (!headings.contains(MarkdownFile.slug(name))) {
                problems.add(name + ": no heading '" + name + "' in " + RUNBOOK);
            }
        });
        assertEquals(List.of(), problems);
    }

    /** The alerts of the rules file, by name. */
    private static Map<String, JsonNode> alerts() throws Exception {
        Map<String, JsonNode> alerts = new TreeMap<>();
        for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (rule.has("alert")) {
                    assertTrue(alerts.put(rule.path("alert").asText(), rule) == null, "two alerts named " + rule.path("alert").asText());
                }
            }
        }
        return alerts;
    }

    private static List<Path> unitTestFiles() throws Exception {
        try (Stream<Path> files = Files.list(FOLDER)) {
            return files.filter(f -> f.getFileName().toString().endsWith("-test.yml")).sorted().toList();
        }
    }

    /** Runs promtool with these arguments; fails with its output unless it exits 0. */
    private static void promtool(String... args) throws Exception {
        List<String> argv = new ArrayList<>();
        argv.add(promtoolPath());
        argv.addAll(List.of(args));
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(String.join(" ", argv) + " did not finish within 60 s:\n" + output);
        }
        assertEquals(0, process.exitValue(), String.join(" ", argv) + " failed:\n" + output);
    }

    private static String promtoolPath() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "promtool");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException("the alert rules' tests need promtool on the PATH"
                + " (Debian: apt-get install prometheus; .ci/run installs it)");
    }
}
