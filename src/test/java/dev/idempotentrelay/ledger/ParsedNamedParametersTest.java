package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.RuntimeExchangeException;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/** The parsed-once named parameters give what camel-sql's own strategy gives, for the statements the relay has. */
class ParsedNamedParametersTest {

    private static final String UPDATE = "UPDATE tx SET state = :?newState, rsp_code = :?rspCode, updated_at = :?now\n"
            + "WHERE guid = :?guid AND state = 'SENT'";

    private final DefaultCamelContext context = new DefaultCamelContext();

    private static List<Object> values(Iterator<?> iterator) {
        List<Object> values = new ArrayList<>();
        iterator.forEachRemaining(values::add);
        return values;
    }

    @Test
    void sameStatementAndValuesAsCamelSqlTwiceInARow() throws Exception {
        ParsedNamedParameters parsed = new ParsedNamedParameters();
        DefaultSqlPrepareStatementStrategy camel = new DefaultSqlPrepareStatementStrategy();
        for (int round = 0; round < 2; round++) {
            Exchange exchange = new DefaultExchange(context);
            exchange.getMessage().setHeader("guid", "G" + round);
            exchange.getMessage().setHeader("newState", "UNKNOWN");
            exchange.getMessage().setHeader("rspCode", "E901");
            exchange.getMessage().setHeader("now", "2026-11-30 10:00:0" + round);
            String prepared = parsed.prepareQuery(UPDATE, true, exchange);
            assertEquals(camel.prepareQuery(UPDATE, true, exchange), prepared);
            assertEquals(values(camel.createPopulateIterator(UPDATE, prepared, 4, exchange, null)),
                    values(parsed.createPopulateIterator(UPDATE, prepared, 4, exchange, null)));
        }
    }

    @Test
    void aMapBodyComesBeforeTheHeadersAndAMissingNameIsAnError() throws Exception {
        ParsedNamedParameters parsed = new ParsedNamedParameters();
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("guid", "from-header");
        exchange.getMessage().setHeader("rspCode", "E902");
        exchange.getMessage().setHeader("now", "t");
        Map<String, Object> row = Map.of("guid", "from-body", "newState", "FAILED");
        String prepared = parsed.prepareQuery(UPDATE, true, exchange);
        assertEquals(List.of("FAILED", "E902", "t", "from-body"), values(parsed.createPopulateIterator(UPDATE, prepared, 4, exchange, row)));
        exchange.getMessage().removeHeader("now");
        assertThrows(RuntimeExchangeException.class, () -> parsed.createPopulateIterator(UPDATE, prepared, 4, exchange, row));
    }
}
