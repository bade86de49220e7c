package dev.idempotentrelay.support;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The ledgers that earlier builds made, kept in src/test/resources/ledgers (its README says how each was made): a dump
 * of each build's SQLite file and PostgreSQL database, and the transfers sent to it with the replies that build gave.
 */
public final class EarlierLedgers {

    /** The builds, oldest first: before the history, the history's first version, and the last before versioning. */
    public static final List<String> BUILDS = List.of("2026-12-03-before-history", "2026-12-03-history-first", "2026-12-05");

    /** A transfer as the earlier build was sent it, the state its row was left in, and the reply as it went on the wire. */
    public record Transfer(String guid, String from, String to, long amount, String memo, String channel, String state,
            String rspCode, int attempts, String reply) {
    }

    private EarlierLedgers() {
    }

    /** The ledger of {@code build} on {@code kind} ("sqlite" or "postgresql") made again: a SQLite file in {@code dir}, or a new database. */
    public static String restore(String build, String kind, Path dir) throws Exception {
        Path dump = file(build, kind + ".sql");
        if (kind.equals("postgresql")) {
            return Postgres.shared().restored(dump);
        }
        Path db = dir.resolve(build + ".db");
        Process sqlite = new ProcessBuilder("sqlite3", db.toString()).redirectInput(dump.toFile()).redirectErrorStream(true).start();
        String out = new String(sqlite.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!sqlite.waitFor(60, TimeUnit.SECONDS) || sqlite.exitValue() != 0) {
            throw new IllegalStateException("sqlite3 " + db + " < " + dump + " failed: " + out);
        }
        return db.toString();
    }

    /** The transfers sent to the ledger of {@code build} on {@code kind}. */
    public static List<Transfer> transfers(String build, String kind) throws IOException, URISyntaxException {
        List<Transfer> transfers = new ArrayList<>();
        List<String> lines = Files.readAllLines(file(build, "transfers-" + kind + ".tsv"), StandardCharsets.US_ASCII);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split("\t", -1);
            transfers.add(new Transfer(f[0], f[1], f[2], Long.parseLong(f[3]), f[4], f[5], f[6], f[7], Integer.parseInt(f[8]), f[9]));
        }
        return transfers;
    }

    private static Path file(String build, String name) throws URISyntaxException {
        return Path.of(EarlierLedgers.class.getClassLoader().getResource("ledgers/" + build + "/" + name).toURI());
    }
}
