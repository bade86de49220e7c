package dev.idempotentrelay.ledger;

import static dev.idempotentrelay.telegram.Telegram.*;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A ledger row as an operator reads it: its columns, with the stored request and reply decoded into their
 * fields (SPEC section 2) beside their raw text, and the GUID's history. The one decoding behind GET /ledger/{guid},
 * GET /ledger/{guid}/history, GET /ledger and the {@code ledger} command (the admin routes call it as bean ledgerRowView).
 */
public final class LedgerRowView {

    /** The columns of a history row, in the order an operator reads them. */
    public static final List<String> HISTORY_COLUMNS = List.of("at", "from_state", "to_state", "rsp_code", "attempts", "relay", "cause");

    /** The rows of a list, each as {@link #of}. */
    public static List<Map<String, Object>> rows(List<Map<String, Object>> rows) {
        List<Map<String, Object>> views = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
            views.add(of(row));
        }
        return views;
    }

    /**
     * guid, tx_code, state, rsp_code, attempts, created_at, updated_at, relay and cause (of the last change),
     * request {fields}, reply {fields} or null.
     */
    public static Map<String, Object> of(Map<String, Object> row) {
        Map<String, Object> view = new LinkedHashMap<>();
        for (String column : List.of("guid", "tx_code", "state", "rsp_code", "attempts", "created_at", "updated_at", "relay", "cause")) {
            view.put(column, row.get(column));
        }
        view.put("request", request((byte[]) row.get("request")));
        view.put("reply", reply((byte[]) row.get("response")));
        return view;
    }

    /** The row as {@link #of(Map)}, then its history (the rows of sql/find-guid-history.sql), oldest first. */
    public static Map<String, Object> of(Map<String, Object> row, List<Map<String, Object>> history) {
        Map<String, Object> view = of(row);
        view.put("history", history(history));
        return view;
    }

    /** A GUID without a row: why, and its history, which outlives a purged row. */
    public static Map<String, Object> missing(String guid, List<Map<String, Object>> history) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("error", "no ledger row for guid " + guid);
        view.put("history", history(history));
        return view;
    }

    /** Each state change: at, from_state, to_state, rsp_code, attempts, relay, cause; an empty list for none. */
    public static List<Map<String, Object>> history(List<Map<String, Object>> history) {
        List<Map<String, Object>> changes = new ArrayList<>();
        if (history != null) {
            for (Map<String, Object> change : history) {
                Map<String, Object> view = new LinkedHashMap<>();
                for (String column : HISTORY_COLUMNS) {
                    view.put(column, change.get(column));
                }
                changes.add(view);
            }
        }
        return changes;
    }

    static Map<String, Object> request(byte[] request) {
        if (request == null) {
            return null;
        }
        Map<String, Object> fields = header(request);
        if (request.length >= REQUEST_LENGTH) {
            fields.put("from", field(request, FROM, ACCOUNT_WIDTH));
            fields.put("to", field(request, TO, ACCOUNT_WIDTH));
            fields.put("amount", Long.parseLong(raw(request, AMOUNT, AMOUNT_WIDTH)));
            fields.put("memo", field(request, MEMO, MEMO_WIDTH));
        }
        fields.put("raw", new String(request, StandardCharsets.US_ASCII));
        return fields;
    }

    static Map<String, Object> reply(byte[] reply) {
        if (reply == null) {
            return null;
        }
        Map<String, Object> fields = header(reply);
        if (reply.length >= ACCEPTED_REPLY_LENGTH) {
            fields.put("core_ref", field(reply, CORE_REF, CORE_REF_WIDTH));
            fields.put("balance_after", Long.parseLong(raw(reply, BALANCE_AFTER, BALANCE_WIDTH)));
            fields.put("processed_at", raw(reply, PROCESSED_AT, PROCESSED_AT_WIDTH));
        }
        fields.put("raw", new String(reply, StandardCharsets.US_ASCII));
        return fields;
    }

    private static Map<String, Object> header(byte[] message) {
        Map<String, Object> fields = new LinkedHashMap<>();
        if (message.length >= HEADER_LENGTH) {
            fields.put("tx_code", raw(message, TX_CODE, 4));
            fields.put("kind", raw(message, KIND, 1));
            fields.put("guid", raw(message, GUID, GUID_WIDTH));
            fields.put("channel", field(message, CHANNEL, CHANNEL_WIDTH));
            fields.put("rsp_code", raw(message, RSP_CODE, 4));
        }
        return fields;
    }
}
