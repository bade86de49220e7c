package dev.idempotentrelay.ledger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.apache.camel.component.sql.SqlHelper;

/**
 * A named SQL file of {@code sql/} read from the classpath for plain JDBC: the same statement the routes run through
 * camel-sql, read as camel-sql reads it (comment lines dropped, {@code :#name} made {@code :?name}) and its parameters
 * turned into {@code ?} in order by the relay's one parser of them, {@link ParsedNamedParameters}.
 */
public record SqlFile(String name, String jdbc, List<String> parameters) {

    private static final ParsedNamedParameters NAMED_PARAMETERS = new ParsedNamedParameters();

    public static SqlFile load(String name) {
        String resource = "sql/" + name + ".sql";
        try (InputStream in = SqlFile.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath");
            }
            String text = SqlHelper.resolvePlaceholders(new String(in.readAllBytes(), StandardCharsets.UTF_8), "#");
            List<String> parameters = NAMED_PARAMETERS.names(text);
            if (text.contains("{{") || parameters == null) {
                throw new IllegalStateException(resource + " uses property placeholders, Simple expressions or IN lists: run"
                        + " it through the sql: component");
            }
            return new SqlFile(name, NAMED_PARAMETERS.prepareQuery(text, true, null), parameters);
        } catch (IOException | SQLException e) {
            throw new IllegalStateException(resource + ": " + e.getMessage(), e);
        }
    }

    /** This statement prepared on {@code connection}, each named parameter bound from {@code values} by its name. */
    public PreparedStatement prepare(Connection connection, Map<String, ?> values) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(jdbc);
        try {
            for (int i = 0; i < parameters.size(); i++) {
                statement.setObject(i + 1, values.get(parameters.get(i)));
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }
}
