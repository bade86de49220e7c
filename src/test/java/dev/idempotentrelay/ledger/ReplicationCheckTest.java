package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.ledger.ReplicationCheck.Row;
import dev.idempotentrelay.ledger.ReplicationCheck.Status;
import dev.idempotentrelay.ledger.ReplicationCheck.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verdict on what sql/show-replication.sql returns, for the cases a test server does not show on its own: a
 * database user who sees the standbys but not their names and states, two standbys under ANY 1, the synchronous one
 * gone. (The cases a real server shows are in ReplicatedLedgerStartTest and LedgerFailoverIT.)
 */
class ReplicationCheckTest {

    private static Row standby(String commit, String names, Integer pid, String name, String syncState) {
        return new Row(commit, names, pid, name, syncState == null ? null : "streaming", syncState);
    }

    @Test
    void noStandbyIsASingleServerWhateverTheSettings() {
        Verdict verdict = ReplicationCheck.verdict(List.of(standby("on", "", null, null, null)));
        assertEquals(Status.NO_STANDBY, verdict.status());
        verdict = ReplicationCheck.verdict(List.of(standby("on", "s1", null, null, null)));
        assertEquals(Status.NO_STANDBY, verdict.status());
    }

    @Test
    void standbysHiddenFromTheUserStillCountAndNoStandbyNamesMakesThemAsynchronous() {
        Verdict verdict = ReplicationCheck.verdict(List.of(standby("on", "", 4711, null, null)));
        assertEquals(Status.ASYNCHRONOUS, verdict.status());
        assertTrue(verdict.detail().contains("pid 4711 (name and state hidden from this database user)"), verdict.detail());
        assertTrue(verdict.detail().contains("synchronous_standby_names is empty"), verdict.detail());
        // with names set, what the user cannot see is not claimed: synchronous, no word on which one is connected
        verdict = ReplicationCheck.verdict(List.of(standby("on", "s1", 4711, null, null)));
        assertEquals(Status.SYNCHRONOUS, verdict.status());
        assertTrue(!verdict.detail().contains("commits wait until one is"), verdict.detail());
    }

    @Test
    void anyOneOfTwoIsSynchronousAndWithBothGoneCommitsWait() {
        Verdict verdict = ReplicationCheck.verdict(List.of(
                standby("on", "ANY 1 (s1, s2)", 11, "s1", "quorum"), standby("on", "ANY 1 (s1, s2)", 12, "s2", "quorum")));
        assertEquals(Status.SYNCHRONOUS, verdict.status());
        assertTrue(verdict.detail().contains("s1 (quorum, streaming), s2 (quorum, streaming)"), verdict.detail());
        // a standby that is not named streams asynchronously: the named one is gone, so commits wait
        verdict = ReplicationCheck.verdict(List.of(standby("on", "s1", 13, "s3", "async")));
        assertEquals(Status.SYNCHRONOUS, verdict.status());
        assertTrue(verdict.detail().endsWith("no synchronous standby is connected: commits wait until one is"), verdict.detail());
    }

    @Test
    void aCommitThatDoesNotWaitForTheStandbyIsAsynchronousEvenWithStandbyNames() {
        for (String commit : List.of("local", "off")) {
            Verdict verdict = ReplicationCheck.verdict(List.of(standby(commit, "s1", 11, "s1", "sync")));
            assertEquals(Status.ASYNCHRONOUS, verdict.status(), commit);
            assertTrue(verdict.detail().contains("synchronous_commit " + commit + " for the relay's sessions does not wait"), verdict.detail());
        }
        for (String commit : List.of("on", "remote_write", "remote_apply")) {
            assertEquals(Status.SYNCHRONOUS, ReplicationCheck.verdict(List.of(standby(commit, "s1", 11, "s1", "sync"))).status(), commit);
        }
    }
}
