package dev.idempotentrelay.ledger;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A named SQL file of {@code sql/} read from the classpath for plain JDBC: the same statement the routes run
 * through camel-sql, its {@code :#name} parameters turned into {@code ?} in order.
 */
public record SqlFile(String name, String jdbc, List<String> parameters) {

    private static final Pattern PARAMETER = Pattern.compile(":#([A-Za-z][A-Za-z0-9_]*)");

    public static SqlFile load(String name) {
        String resource = "sql/" + name + ".sql";
        String text;
        try {
            text = code(resource);
        } catch (FileNotFoundException e) {
            throw new IllegalStateException(e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (text.contains("{{")) {
            throw new IllegalStateException(resource + " uses property placeholders: run it through the sql: component");
        }
        List<String> parameters = new ArrayList<>();
        Matcher m = PARAMETER.matcher(text);
        StringBuilder jdbc = new StringBuilder();
        while (m.find()) {
            parameters.add(m.group(1));
            m.appendReplacement(jdbc, "?");
        }
        m.appendTail(jdbc);
        return new SqlFile(name, jdbc.toString(), List.copyOf(parameters));
    }

    /**
     * The text of a SQL file on the classpath (a named statement, or a schema) without its comment lines: camel-sql
     * drops them too, and their text may name parameters or hold a semicolon.
     */
    static String code(String resource) throws IOException {
        try (InputStream in = SqlFile.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new FileNotFoundException(resource + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.strip().startsWith("--")).collect(Collectors.joining("\n"));
        }
    }
}
