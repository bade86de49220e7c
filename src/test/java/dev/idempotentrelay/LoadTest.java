package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreAndRelayTest;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Many channels at once on the durable ledger: every transfer answered, no GUID at the core twice. */
class LoadTest extends CoreAndRelayTest {


    @Test
    void twoHundredChannelsAtOnceEachWithANewGuidAreAllAccepted() throws Exception {
        int channels = 200;
        CyclicBarrier together = new CyclicBarrier(channels);
        ExecutorService pool = Executors.newFixedThreadPool(channels);
        List<String> guids = new ArrayList<>();
        List<Future<byte[]>> replies = new ArrayList<>();
        try {
            for (int i = 0; i < channels; i++) {
                String guid = newGuid();
                guids.add(guid);
                replies.add(pool.submit(() -> {
                    try (Channel channel = Channel.open(relay.port)) {
                        together.await(30, TimeUnit.SECONDS);
                        return channel.send(transfer(guid));
                    }
                }));
            }
            for (int i = 0; i < channels; i++) {
                byte[] reply = replies.get(i).get(60, TimeUnit.SECONDS);
                assertEquals("0000", Telegram.rspCode(reply), guids.get(i));
                assertEquals(guids.get(i), Telegram.guid(reply));
            }
        } finally {
            pool.shutdownNow();
        }
        for (String guid : guids) {
            assertEquals(1, coreView.calls(guid), guid);
        }
        assertEquals(channels, coreView.calls());
        assertEquals(channels, relay.ledger.queryLong("SELECT COUNT(*) FROM tx WHERE state = 'DONE' AND rsp_code = '0000'"));
    }

    @Test
    void newGuidsMixedWithResendsUnderLoadNeverReachTheCoreTwice() throws Exception {
        int channels = 32;
        int perChannel = 120;
        Map<String, byte[]> sent = new ConcurrentHashMap<>();
        List<String> order = new CopyOnWriteArrayList<>();
        Map<String, List<byte[]>> accepted = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(channels);
        List<Future<Integer>> results = new ArrayList<>();
        try {
            for (int c = 0; c < channels; c++) {
                long seed = 1000 + c;
                results.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    int resends = 0;
                    try (Channel channel = Channel.open(relay.port)) {
                        for (int i = 0; i < perChannel; i++) {
                            String guid;
                            if (!order.isEmpty() && random.nextInt(10) < 4) {
                                guid = order.get(random.nextInt(order.size()));
                                resends++;
                            } else {
                                guid = newGuid();
                                sent.put(guid, transfer(guid));
                                order.add(guid);
                            }
                            byte[] reply = channel.send(sent.get(guid));
                            String code = Telegram.rspCode(reply);
                            if (code.equals("0000")) {
                                accepted.computeIfAbsent(guid, g -> new CopyOnWriteArrayList<>()).add(reply);
                            } else if (!code.equals("E903")) {
                                throw new AssertionError(guid + " answered " + code);
                            }
                        }
                    }
                    return resends;
                }));
            }
            int resends = 0;
            for (Future<Integer> result : results) {
                resends += result.get(120, TimeUnit.SECONDS);
            }
            assertEquals(true, resends > channels * perChannel / 5, "the load held resends: " + resends);
        } finally {
            pool.shutdownNow();
        }
        for (String guid : sent.keySet()) {
            assertEquals(1, coreView.calls(guid), guid);
            Map<String, Object> row = relay.ledger.row(guid);
            assertEquals("DONE", row.get("state"));
            for (byte[] reply : accepted.getOrDefault(guid, List.of())) {
                assertArrayEquals((byte[]) row.get("response"), reply, guid);
            }
        }
        assertEquals(sent.size(), coreView.calls());
    }
}
