package dev.idempotentrelay.ledger;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.RuntimeExchangeException;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;

/**
 * camel-sql's named parameters ({@code :#name} in the SQL files), parsed once per statement instead of by
 * regular expressions on every call: the {@code ?} form of the statement and the order of its names are kept.
 * A name is looked up in the body when it is a map, then the headers, then the variables (camel-sql also tries
 * to convert any other body to a map, which this does not).
 * A statement with Simple expressions ({@code :#${...}}) or IN lists goes to camel-sql's own strategy.
 * What that is worth is in {@link LedgerSqlComponent}'s comment.
 */
public class ParsedNamedParameters extends DefaultSqlPrepareStatementStrategy {

    private static final Pattern NAME = Pattern.compile(":\\?(\\w+)");

    private record Parsed(String prepared, List<String> names) {
    }

    private final Map<String, Parsed> statements = new ConcurrentHashMap<>();

    @Override
    public String prepareQuery(String query, boolean allowNamedParameters, Exchange exchange) throws SQLException {
        Parsed parsed = allowNamedParameters ? parsed(query) : null;
        return parsed == null ? super.prepareQuery(query, allowNamedParameters, exchange) : parsed.prepared();
    }

    /**
     * How many parameters the statement takes, known from its text, or 0 when this strategy leaves the statement to
     * camel-sql's own (then camel-sql asks the driver, which on PostgreSQL is one more round trip per statement).
     */
    public int parameterCount(String query) throws SQLException {
        Parsed parsed = parsed(query);
        return parsed == null ? 0 : parsed.names().size();
    }

    /** The statement's parameter names in order, or null when it is left to camel-sql's own strategy. */
    public List<String> names(String query) throws SQLException {
        Parsed parsed = parsed(query);
        return parsed == null ? null : parsed.names();
    }

    /** Where the parameter {@code name} stands among the statement's values, or -1 when it has none (or is not parsed here). */
    public int position(String query, String name) throws SQLException {
        Parsed parsed = parsed(query);
        return parsed == null ? -1 : parsed.names().indexOf(name);
    }

    @Override
    public Iterator<?> createPopulateIterator(String query, String preparedQuery, int expectedParams, Exchange exchange,
            Object value) throws SQLException {
        Parsed parsed = statements.get(query);
        if (parsed == null || parsed.names().isEmpty()) {
            return super.createPopulateIterator(query, preparedQuery, expectedParams, exchange, value);
        }
        List<Object> values = new ArrayList<>(parsed.names().size());
        // only a body that is a map names parameters: on the channel path the body is the telegram's bytes, and a
        // conversion attempt of those to a map on every statement costs a type-converter miss each time
        Map<?, ?> body = value instanceof Map<?, ?> map ? map : Map.of();
        for (String name : parsed.names()) {
            values.add(lookup(name, body, exchange, query));
        }
        return values.iterator();
    }

    private Parsed parsed(String query) throws SQLException {
        Parsed parsed = statements.get(query);
        if (parsed == null && !query.contains("${") && !query.contains("$simple{") && !query.contains(":?in:")) {
            List<String> names = new ArrayList<>();
            Matcher name = NAME.matcher(query);
            while (name.find()) {
                names.add(name.group(1));
            }
            parsed = new Parsed(super.prepareQuery(query, true, null), List.copyOf(names));
            statements.put(query, parsed);
        }
        return parsed;
    }

    private static Object lookup(String name, Map<?, ?> body, Exchange exchange, String query) {
        if (body != null && body.containsKey(name)) {
            return body.get(name);
        }
        Map<String, Object> headers = exchange.getMessage().getHeaders();
        if (headers.containsKey(name)) {
            return headers.get(name);
        }
        if (exchange.hasVariables() && exchange.getVariables().containsKey(name)) {
            return exchange.getVariables().get(name);
        }
        throw new RuntimeExchangeException(String.format(
                "Cannot find key [%s] in message body or headers to use when setting named parameter in query [%s]", name, query),
                exchange);
    }
}
