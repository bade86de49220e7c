package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The hint of which ledger statement to run first: a GUID is new to the relay until it has had it once. */
class RecentGuidsTest {

    private static String guid() {
        return UUID.randomUUID().toString().replace("-", "").toUpperCase();
    }

    @Test
    void aGuidIsNewTheFirstTimeAndSeenAfter() {
        RecentGuids recent = new RecentGuids();
        String guid = guid();
        assertFalse(recent.seenBefore(guid));
        assertTrue(recent.seenBefore(guid));
        assertTrue(recent.seenBefore(guid));
        assertFalse(recent.seenBefore(guid()), "another GUID");
    }

    @Test
    void theLastHundredThousandGuidsAreNearlyAllStillKnown() {
        RecentGuids recent = new RecentGuids();
        String[] guids = new String[100_000];
        for (int i = 0; i < guids.length; i++) {
            guids[i] = guid();
            assertFalse(recent.seenBefore(guids[i]), "a new GUID taken for seen: " + guids[i]);
        }
        // newest first: a check remembers the GUID again, and must not push out a newer one before it is checked
        int known = 0;
        for (int i = guids.length - 1; i >= 0; i--) {
            known += recent.seenBefore(guids[i]) ? 1 : 0;
        }
        // 100,000 GUIDs in 2^20 slots fill about 95,400 of them (a later GUID in the slot of an earlier one pushes it out)
        assertTrue(known > 94_000, known + " of 100,000 still known");
    }
}
