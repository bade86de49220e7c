package dev.idempotentrelay.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The {@code --name value} and {@code --switch} flags of one command, checked against what it accepts. */
final class Flags {

    private final Map<String, String> values = new LinkedHashMap<>();

    private Flags() {
    }

    static Flags parse(String command, String[] args, int from, Set<String> valued, Set<String> switches)
            throws UsageException {
        Flags flags = new Flags();
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new UsageException(command + ": unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            if (switches.contains(name)) {
                flags.values.put(name, "true");
            } else if (valued.contains(name)) {
                if (i + 1 >= args.length) {
                    throw new UsageException(command + ": --" + name + " needs a value");
                }
                flags.values.put(name, args[++i]);
            } else {
                throw new UsageException(command + ": unknown flag --" + name);
            }
        }
        return flags;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    String get(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    String required(String command, String name) throws UsageException {
        String value = values.get(name);
        if (value == null) {
            throw new UsageException(command + ": --" + name + " is required");
        }
        return value;
    }

    /** A whole number of at least {@code min}, or the default when the flag is absent. */
    long number(String command, String name, long otherwise, long min) throws UsageException {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            long n = Long.parseLong(value);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(command + ": --" + name + " must be a whole number of at least " + min + ", not '" + value + "'");
    }

    Map<String, String> all() {
        return values;
    }
}
