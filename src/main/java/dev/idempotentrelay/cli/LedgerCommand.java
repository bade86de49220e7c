package dev.idempotentrelay.cli;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.RelaySecrets;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.LedgerReader;
import dev.idempotentrelay.ledger.LedgerRowView;
import dev.idempotentrelay.ledger.LedgerStates;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code ledger show GUID}, {@code ledger history GUID}, {@code ledger list --state S [--limit N]} and
 * {@code ledger stats}: an operator's view of a ledger, read directly and read-only, whether a relay is writing it or
 * not. {@code show} decodes the row as GET /ledger/{guid} does ({@link LedgerRowView}) and ends with its history;
 * {@code history} is the GUID's every state change, as GET /ledger/{guid}/history, which outlives a purged row.
 */
final class LedgerCommand {

    static final int DEFAULT_LIMIT = 100;
    private static final Pattern GUID = Pattern.compile(Telegram.GUID_PATTERN);
    private static final String USAGE = "ledger: say show GUID, history GUID, list --state S [--limit N], or stats; each takes [--db PATH|URL] [--db-user U] [--config FILE]";
    private static final Set<String> FLAGS = Set.of("db", "db-user", "config");

    private LedgerCommand() {
    }

    static int run(String[] args, Map<String, String> environment) throws UsageException {
        if (args.length < 2) {
            throw new UsageException(USAGE);
        }
        switch (args[1]) {
            case "show":
                return show(args, environment);
            case "history":
                return history(args, environment);
            case "list":
                return list(args, environment);
            case "stats":
                return stats(args, environment);
            default:
                throw new UsageException("ledger: unknown subcommand '" + args[1] + "'; " + USAGE.substring("ledger: ".length()));
        }
    }

    private static int show(String[] args, Map<String, String> environment) throws UsageException {
        String guid = guid("ledger show", args);
        Ledger db = db("ledger show", Flags.parse("ledger show", args, 3, FLAGS, Set.of()), environment);
        Map<String, Object> row;
        List<Map<String, Object>> history;
        try (LedgerReader ledger = open("ledger show", db)) {
            row = ledger.row(guid);
            history = ledger.history(guid);
        } catch (SQLException e) {
            throw unreadable("ledger show", db, e);
        }
        StringBuilder out = new StringBuilder();
        if (row != null) {
            Map<String, Object> fields = new LinkedHashMap<>();
            flatten("", LedgerRowView.of(row), fields);
            int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
            fields.forEach((name, value) -> out.append(pad(name, width)).append(value == null ? "-" : value).append('\n'));
        }
        if (!history.isEmpty()) {
            out.append(row == null ? "" : "\n").append("history\n").append(historyTable(history));
        }
        System.out.print(out);
        if (row == null) {
            ErrorLine.print("ledger show: no row for guid " + guid + " in " + db + (history.isEmpty() ? "" : " (its history is above)"));
            return 1;
        }
        return 0;
    }

    private static int history(String[] args, Map<String, String> environment) throws UsageException {
        String guid = guid("ledger history", args);
        Ledger db = db("ledger history", Flags.parse("ledger history", args, 3, FLAGS, Set.of()), environment);
        List<Map<String, Object>> history;
        try (LedgerReader ledger = open("ledger history", db)) {
            history = ledger.history(guid);
        } catch (SQLException e) {
            throw unreadable("ledger history", db, e);
        }
        if (history.isEmpty()) {
            ErrorLine.print("ledger history: no history for guid " + guid + " in " + db
                    + ": never claimed there, or longer ago than relay.history.days");
            return 1;
        }
        System.out.print(historyTable(history));
        return 0;
    }

    /** The GUID a subcommand names after its name, checked. */
    private static String guid(String command, String[] args) throws UsageException {
        if (args.length < 3 || args[2].startsWith("--")) {
            throw new UsageException(command + ": say which GUID");
        }
        if (!GUID.matcher(args[2]).matches()) {
            throw new UsageException(command + ": a GUID is 32 letters and digits, not '" + args[2] + "'");
        }
        return args[2];
    }

    /** A GUID's state changes, oldest first, one line each under a header, as {@link LedgerRowView#HISTORY_COLUMNS}. */
    private static String historyTable(List<Map<String, Object>> history) {
        String format = "%-19s  %-10s  %-8s  %-8s  %-8s  %-24s  %s%n";
        StringBuilder out = new StringBuilder(String.format(format, "at", "from_state", "to_state", "rsp_code", "attempts", "relay", "cause"));
        for (Map<String, Object> change : LedgerRowView.history(history)) {
            Object[] values = LedgerRowView.HISTORY_COLUMNS.stream().map(c -> change.get(c) == null ? "-" : change.get(c)).toArray();
            out.append(String.format(format, values));
        }
        return out.toString();
    }

    private static int list(String[] args, Map<String, String> environment) throws UsageException {
        Flags flags = Flags.parse("ledger list", args, 2, Set.of("db", "db-user", "config", "state", "limit"), Set.of());
        String state = flags.required("ledger list", "state");
        if (!LedgerStates.ALL.contains(state)) {
            throw new UsageException("ledger list: --state must be one of " + String.join(", ", LedgerStates.ALL) + ", not '" + state + "'");
        }
        long limit = flags.number("ledger list", "limit", DEFAULT_LIMIT, 1);
        if (limit > LedgerStates.LIST_LIMIT) {
            throw new UsageException("ledger list: --limit must be at most " + LedgerStates.LIST_LIMIT + ", not " + limit);
        }
        Ledger db = db("ledger list", flags, environment);
        List<Map<String, Object>> rows;
        try (LedgerReader ledger = open("ledger list", db)) {
            rows = ledger.list(state, (int) limit);
        } catch (SQLException e) {
            throw unreadable("ledger list", db, e);
        }
        StringBuilder out = new StringBuilder(String.format("%-32s  %-8s  %-8s  %-8s  %s%n", "guid", "state", "rsp_code", "attempts", "updated_at"));
        for (Map<String, Object> row : rows) {
            out.append(String.format("%-32s  %-8s  %-8s  %-8s  %s%n", row.get("guid"), row.get("state"),
                    row.get("rsp_code") == null ? "-" : row.get("rsp_code"), row.get("attempts"), row.get("updated_at")));
        }
        System.out.print(out);
        return 0;
    }

    private static int stats(String[] args, Map<String, String> environment) throws UsageException {
        Ledger db = db("ledger stats", Flags.parse("ledger stats", args, 2, FLAGS, Set.of()), environment);
        List<Map<String, Object>> counts;
        try (LedgerReader ledger = open("ledger stats", db)) {
            counts = ledger.countByState();
        } catch (SQLException e) {
            throw unreadable("ledger stats", db, e);
        }
        Map<String, Map<String, Object>> byState = new LinkedHashMap<>();
        for (Map<String, Object> count : counts) {
            byState.put(String.valueOf(count.get("state")), count);
        }
        List<String> states = new ArrayList<>(LedgerStates.ALL);
        byState.keySet().stream().filter(s -> !states.contains(s)).forEach(states::add);
        StringBuilder out = new StringBuilder(String.format("%-8s  %8s  %s%n", "state", "rows", "oldest_updated_at"));
        long total = 0;
        for (String state : states) {
            Map<String, Object> count = byState.get(state);
            long rows = count == null ? 0 : ((Number) count.get("n")).longValue();
            total += rows;
            out.append(String.format("%-8s  %8d  %s%n", state, rows, count == null ? "-" : count.get("oldest")));
        }
        out.append(String.format("%-8s  %8d%n", "total", total));
        System.out.print(out);
        return 0;
    }

    /** A ledger as the ledger commands name it: a SQLite file, or a PostgreSQL URL, its user and password. */
    record Ledger(String db, String user, String password) {
        @Override
        public String toString() {
            return LedgerDialect.describe(db);
        }
    }

    /** The ledger of --db, RELAY_DB or relay.db in --config (relay.db by default), which must exist. */
    private static Ledger db(String command, Flags flags, Map<String, String> environment) throws UsageException {
        Settings settings = Settings.load(command, flags, environment);
        if (flags.has("db")) {
            settings.flag("db", RelayProperty.DB.key, flags.get("db", null));
        }
        if (flags.has("db-user")) {
            settings.flag("db-user", RelayProperty.DB_USER.key, flags.get("db-user", null));
        }
        settings.check(command, List.of(RelayProperty.DB));
        existingLedger(command, settings);
        return new Ledger(settings.get(RelayProperty.DB), settings.get(RelayProperty.DB_USER), RelaySecrets.from(environment).dbPassword());
    }

    /**
     * The ledger of {@code settings}, which must exist: no command but run creates one. A SQLite file is looked for
     * here; a PostgreSQL database is asked when it is opened.
     */
    static void existingLedger(String command, Settings settings) throws UsageException {
        String ledger = settings.get(RelayProperty.DB);
        if (LedgerDialect.of(ledger) == LedgerDialect.SQLITE && !Files.isRegularFile(Path.of(ledger))) {
            throw new UsageException(command + ": no ledger at " + ledger + " (the relay creates it on its first start)");
        }
    }

    private static LedgerReader open(String command, Ledger db) throws UsageException {
        try {
            return LedgerDialect.of(db.db()) == LedgerDialect.POSTGRESQL ? LedgerReader.openDatabase(db.db(), db.user(), db.password())
                    : LedgerReader.open(Path.of(db.db()));
        } catch (SQLException e) {
            throw unreadable(command, db, e);
        }
    }

    /** One line: busy (another process holds the ledger's lock past the busy timeout), or the deepest cause. */
    private static UsageException unreadable(String command, Ledger db, SQLException e) {
        if (LedgerReader.isBusy(e)) {
            return new UsageException(command + ": ledger " + db + " is busy: another process holds its lock (waited "
                    + LedgerReader.BUSY_TIMEOUT_MS / 1000 + " s); try again");
        }
        return new UsageException(command + ": cannot read ledger " + db + ": " + Relay.rootMessage(e));
    }

    /** Nested maps as dotted names: request.from, reply.core_ref. */
    private static void flatten(String prefix, Map<String, Object> map, Map<String, Object> into) {
        map.forEach((name, value) -> {
            if (value instanceof Map<?, ?> nested) {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = (Map<String, Object>) nested;
                flatten(prefix + name + ".", fields, into);
            } else {
                into.put(prefix + name, value);
            }
        });
    }

    private static String pad(String text, int width) {
        return text + " ".repeat(Math.max(1, width - text.length()));
    }
}
