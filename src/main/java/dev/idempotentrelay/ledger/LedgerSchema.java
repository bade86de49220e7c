package dev.idempotentrelay.ledger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Applies {@code schema.sql} (from the classpath) to the ledger: statement by statement, harmless twice. */
public final class LedgerSchema {

    private static final String RESOURCE = "schema.sql";

    private LedgerSchema() {
    }

    public static void apply(DataSource ledger) throws SQLException, IOException {
        try (Connection connection = ledger.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements()) {
                statement.execute(sql);
            }
        }
    }

    static List<String> statements() throws IOException {
        String text;
        try (InputStream in = LedgerSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is not on the classpath");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder code = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String sql : code.toString().split(";")) {
            if (!sql.isBlank()) {
                statements.add(sql.strip());
            }
        }
        return statements;
    }
}
