package dev.idempotentrelay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every route file validates against Camel's own YAML DSL schema, the camelYamlDsl.json that ships inside the
 * camel-yaml-dsl jar (what Karavan and the editors' Camel tooling read): no violation in any file.
 */
class RouteSchemaTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static Schema schema;

    @BeforeAll
    static void loadCamelsSchema() throws Exception {
        try (InputStream in = org.apache.camel.dsl.yaml.YamlRoutesBuilderLoader.class.getResourceAsStream("/schema/camelYamlDsl.json")) {
            assertNotNull(in, "camel-yaml-dsl ships schema/camelYamlDsl.json");
            schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4).getSchema(in);
        }
    }

    @Test
    void everyRouteFileValidatesAgainstCamelsYamlDslSchema() throws Exception {
        List<Path> files;
        try (Stream<Path> list = Files.list(Path.of("routes"))) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".camel.yaml")).sorted().toList();
        }
        assertFalse(files.isEmpty());
        List<String> violations = new ArrayList<>();
        for (Path file : files) {
            for (Error error : schema.validate(YAML.readTree(file.toFile()))) {
                violations.add(file.getFileName() + " " + error.getInstanceLocation() + ": " + error.getMessage());
            }
        }
        assertEquals(List.of(), violations);
    }

    /** The check sees what Camel's schema rejects: the placeholders and expressions the routes once had. */
    @Test
    void theSchemaRejectsAPlaceholderWhereItWantsABooleanAndABooleanWhereItWantsAString() throws Exception {
        JsonNode placeholder = YAML.readTree(String.join("\n",
                "- route:",
                "    id: r",
                "    autoStartup: \"{{relay.jobs.enabled}}\"",
                "    from:",
                "      uri: direct:r",
                "      steps:",
                "        - log:",
                "            message: hi"));
        assertFalse(schema.validate(placeholder).isEmpty());
        JsonNode handled = YAML.readTree(String.join("\n",
                "- routeConfiguration:",
                "    onException:",
                "      - onException:",
                "          exception: [java.lang.Exception]",
                "          handled:",
                "            constant:",
                "              expression: true"));
        assertFalse(schema.validate(handled).isEmpty());
    }
}
