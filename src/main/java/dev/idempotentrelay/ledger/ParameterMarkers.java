package dev.idempotentrelay.ledger;

/** Counts the {@code ?} parameter markers of a SQL statement, outside its string literals, quoted names and comments. */
final class ParameterMarkers {

    private ParameterMarkers() {
    }

    static int count(String sql) {
        int count = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int close = sql.indexOf(c, i + 1);
                i = close < 0 ? n : close + 1; // a doubled quote inside is two literals back to back: same count
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else {
                if (c == '?') {
                    count++;
                }
                i++;
            }
        }
        return count;
    }
}
