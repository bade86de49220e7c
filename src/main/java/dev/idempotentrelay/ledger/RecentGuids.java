package dev.idempotentrelay.ledger;

import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Whether this relay has had the GUID of the exchange (variable {@code guid}) before: sets variable
 * {@code seenHere} to true or false, and remembers the GUID. It is a hint of which ledger statement to run first, and
 * decides nothing: a GUID seen here is most likely a resend, whose row answers it with one read; any other is most
 * likely new, and is claimed at once, without a read that would find nothing. Either way the claim's update count
 * alone decides who calls the core, so a wrong hint (a GUID first seen by another relay, or before a restart, or one
 * forgotten here) costs one statement more, never a second core call.
 * <p>
 * It remembers the last 2<sup>20</sup> GUIDs at most, as 64-bit hashes in a table indexed by the hash (8 MiB, no
 * lock): a GUID is forgotten when a later one lands in its slot, so at 8,000 new GUIDs a second about 40% of the GUIDs
 * of two minutes before are still known. Two GUIDs with one hash make the second look seen (one read more).
 */
public final class RecentGuids implements Processor {

    private static final int SLOTS = 1 << 20;

    private final AtomicLongArray hashes = new AtomicLongArray(SLOTS);

    @Override
    public void process(Exchange exchange) {
        exchange.setVariable("seenHere", seenBefore(exchange.getVariable("guid", String.class)));
    }

    /** Whether {@code guid} was remembered here; it is remembered from now on. */
    boolean seenBefore(String guid) {
        long hash = hash(guid);
        // the slot from all 64 bits of the hash, mixed first (MurmurHash3's finalizer)
        long mixed = (hash ^ (hash >>> 33)) * 0xff51afd7ed558ccdL;
        mixed = (mixed ^ (mixed >>> 33)) * 0xc4ceb9fe1a85ec53L;
        int slot = (int) (mixed ^ (mixed >>> 33)) & (SLOTS - 1);
        return hashes.getAndSet(slot, hash) == hash;
    }

    /** FNV-1a over the GUID's characters; never 0, the value of an empty slot. */
    private static long hash(String guid) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < guid.length(); i++) {
            hash = (hash ^ guid.charAt(i)) * 0x100000001b3L;
        }
        return hash == 0 ? 1 : hash;
    }
}
