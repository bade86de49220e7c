package dev.idempotentrelay.ledger;

import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * The columns of the ledger row that answers a GUID (variable {@code ledgerRow}, a row of {@code find-by-guid.sql},
 * or null when there is none) as variables of their own, for the router on ledger state: {@code rowState},
 * {@code rowRspCode}, {@code rowReply} (the stored reply, for DONE) and {@code sameRequest} (whether the request is
 * byte for byte the stored one). All four are unset when there is no row.
 * <p>
 * The router could read the map itself ({@code ${variable.ledgerRow[state]}}), but Simple evaluates a key of a
 * variable through the bean language: a new bean expression and a copy of the whole exchange at every evaluation.
 * The five of them on a resend of a DONE GUID took a third of the relay's Java samples (JFR; BENCHMARKS.md).
 */
public final class LedgerRowColumns implements Processor {

    @Override
    public void process(Exchange exchange) {
        @SuppressWarnings("unchecked")
        Map<String, Object> row = exchange.getVariable("ledgerRow", Map.class);
        if (row == null) {
            return; // none of the four is set: the router takes that for a row gone
        }
        exchange.setVariable("rowState", row.get("state"));
        exchange.setVariable("rowRspCode", row.get("rsp_code"));
        exchange.setVariable("rowReply", row.get("response"));
        // same_request is 1 or 0, in the database's integer type (an Integer from SQLite and from PostgreSQL)
        exchange.setVariable("sameRequest", ((Number) row.get("same_request")).intValue() == 1);
    }
}
