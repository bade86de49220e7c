package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ParameterMarkersTest {

    @Test
    void countsMarkersOutsideLiteralsNamesAndComments() {
        assertEquals(0, ParameterMarkers.count("DELETE FROM tx"));
        assertEquals(3, ParameterMarkers.count("UPDATE tx SET a = ?, b = ? WHERE guid = ?"));
        assertEquals(2, ParameterMarkers.count("-- purpose: why? who?\\nUPDATE tx SET a = ? WHERE b = ?"
                .replace("\\n", "\n")));
        assertEquals(1, ParameterMarkers.count("UPDATE tx SET memo = 'why?' , \"odd?name\" = ? /* or? */"));
        assertEquals(1, ParameterMarkers.count("UPDATE tx SET memo = 'it''s?' WHERE a = ?"));
    }
}
