package dev.idempotentrelay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.util.IOHelper;

/**
 * The properties that one command gives the relay, in layers, each over the one before: the built-in
 * application.properties, the {@code --config FILE}, the {@code RELAY_*} environment variables, the flags, and last
 * what the command itself fixes (a one-shot run serves no channel). Every value remembers where it came from, so
 * that a refusal names what to fix: the flag, the variable, or the key and its file.
 *
 * <p>An environment variable is the property's name as Camel spells it for an environment: upper case, dots and
 * dashes as underscores ({@code relay.core.read-timeout-ms} is {@code RELAY_CORE_READ_TIMEOUT_MS}, by Camel's
 * {@link IOHelper#normalizeEnvironmentVariable}). Camel's own lookup of such variables, which would rank them over
 * the flags, is off (camel.component.properties.environment-variable-mode in application.properties): the command
 * line resolves them here, under the flags, and hands the relay the result.
 */
final class Settings {

    /** The built-in properties, inside the jar. */
    static final String BUILT_IN = "application.properties";
    private static final String RELAY_PREFIX = "relay.";

    private enum Layer { BUILT_IN, CONFIG, ENVIRONMENT, FLAG, COMMAND }

    /** A value and where it came from, as a refusal names it: "--port", "RELAY_PORT", "relay.port in x.properties". */
    private record Value(String text, Layer layer, String origin) {
    }

    private final Map<String, Value> values = new LinkedHashMap<>();
    private final Path configFile;

    private Settings(Path configFile) {
        this.configFile = configFile;
    }

    /**
     * The built-in properties, then the --config file when one is named, then the environment's RELAY_* variables
     * for the relay.* properties of either.
     */
    static Settings load(String command, Flags flags, Map<String, String> environment) throws UsageException {
        Path config = flags.has("config") ? Path.of(flags.get("config", null)) : null;
        Settings settings = new Settings(config);
        builtIn().forEach((key, value) -> settings.put((String) key, (String) value, Layer.BUILT_IN, (String) key));
        if (config != null) {
            Properties file = ConfigFile.read(command, config);
            for (String key : file.stringPropertyNames()) {
                if (key.startsWith(RELAY_PREFIX) && !settings.values.containsKey(key)) {
                    throw new UsageException(command + ": --config " + config + ": unknown property " + key
                            + " (the relay's properties are those of its built-in " + BUILT_IN + ")");
                }
                settings.put(key, file.getProperty(key).strip(), Layer.CONFIG, key + " in " + config);
            }
        }
        for (String key : Map.copyOf(settings.values).keySet()) {
            String variable = IOHelper.normalizeEnvironmentVariable(key);
            if (key.startsWith(RELAY_PREFIX) && environment.containsKey(variable)) {
                settings.put(key, environment.get(variable).strip(), Layer.ENVIRONMENT, variable);
            }
        }
        return settings;
    }

    /** The application.properties inside the jar, as Camel Main reads it. */
    static Properties builtIn() {
        Properties properties = new Properties();
        try (InputStream in = Settings.class.getClassLoader().getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException(BUILT_IN + " is missing from the class path");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    /** What the flag {@code --flag} sets. */
    void flag(String flag, String key, String value) {
        put(key, value, Layer.FLAG, "--" + flag);
    }

    /** What the command itself fixes, whatever the flags, variables and file say. */
    void fix(String key, String value, String command) {
        put(key, value, Layer.COMMAND, command);
    }

    private void put(String key, String value, Layer layer, String origin) {
        values.put(key, new Value(value, layer, origin));
    }

    String get(RelayProperty property) {
        Value value = values.get(property.key);
        return value == null ? null : value.text();
    }

    /** A property that no flag sets and no rule checks, such as relay.db.sqlite-url, by its key. */
    String text(String key) {
        Value value = values.get(key);
        return value == null ? null : value.text();
    }

    /** A number property that {@link #check} found to be a whole number. */
    long number(RelayProperty property) {
        return Long.parseLong(get(property));
    }

    boolean isTrue(RelayProperty property) {
        return Boolean.parseBoolean(get(property));
    }

    /** Where the value came from: "--port", "RELAY_PORT", "relay.port in relay.properties", or "relay.port" (built in). */
    String origin(RelayProperty property) {
        Value value = values.get(property.key);
        return value == null ? property.key : value.origin();
    }

    /** Whether a flag, a variable or the --config file set it, not only the built-in default. */
    boolean given(RelayProperty property) {
        Value value = values.get(property.key);
        return value != null && value.layer() != Layer.BUILT_IN;
    }

    /** The --config file, or null. */
    Path configFile() {
        return configFile;
    }

    /** Refuses the first of {@code properties} whose value its rule does not allow, naming where it came from. */
    void check(String command, Collection<RelayProperty> properties) throws UsageException {
        for (RelayProperty property : properties) {
            String value = get(property);
            String refusal = value == null ? null : property.refusal(value);
            if (refusal != null) {
                throw new UsageException(command + ": " + origin(property) + " " + refusal);
            }
        }
    }

    /** Every value above the built-in layer: what the relay is started with over its application.properties. */
    Map<String, String> overrides() {
        Map<String, String> overrides = new LinkedHashMap<>();
        values.forEach((key, value) -> {
            if (value.layer() != Layer.BUILT_IN) {
                overrides.put(key, value.text());
            }
        });
        return overrides;
    }
}
