package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreAndRelayTest;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Requests;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SPEC section 3, row by row: a real socket, the real core simulator over HTTP, a real SQLite file. */
class ChannelPathTest extends CoreAndRelayTest {


    @Test
    void acceptedTransferIs0000WithTheCoreFieldsAndIsRecordedDone() throws Exception {
        String guid = newGuid();
        byte[] request = transfer(guid);
        byte[] reply;
        try (Channel channel = Channel.open(relay.port)) {
            reply = channel.send(request);
        }
        assertEquals(Telegram.ACCEPTED_REPLY_LENGTH, reply.length);
        assertEquals("TR01R" + guid + "MOB10000", text(reply).substring(0, 45));
        assertEquals("CR00000000000001", Telegram.raw(reply, Telegram.CORE_REF, 16));
        assertEquals("000000999990000", Telegram.raw(reply, Telegram.BALANCE_AFTER, 15));
        assertTrue(Telegram.raw(reply, Telegram.PROCESSED_AT, 14).matches("20[0-9]{12}"));
        assertEquals(999_990_000L, core.balance(Requests.FROM));

        Map<String, Object> row = relay.ledger.row(guid);
        assertEquals("DONE", row.get("state"));
        assertEquals("0000", row.get("rsp_code"));
        assertEquals(1, ((Number) row.get("attempts")).intValue());
        assertEquals("TR01", row.get("tx_code"));
        assertArrayEquals(request, (byte[]) row.get("request"));
        assertArrayEquals(reply, (byte[]) row.get("response"));
        assertTrue(((String) row.get("updated_at")).matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}"));
        assertEquals(1, coreView.calls(guid));
    }

    @Test
    void resendOfDoneReplaysTheStoredReplyByteForByteWithoutCallingTheCore() throws Exception {
        String guid = newGuid();
        byte[] first;
        byte[] second;
        try (Channel channel = Channel.open(relay.port)) {
            first = channel.send(transfer(guid));
        }
        try (Channel channel = Channel.open(relay.port)) {
            second = channel.send(transfer(guid));
        }
        assertEquals("0000", Telegram.rspCode(first));
        assertArrayEquals(first, second);
        assertEquals(1, coreView.calls(guid));
        assertEquals(1, coreView.calls());
    }

    @Test
    void oneConnectionCarriesManyTelegramsAnsweredInOrder() throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            for (int i = 0; i < 5; i++) {
                String guid = newGuid();
                byte[] reply = channel.send(transfer(guid));
                assertEquals(guid, Telegram.guid(reply));
                assertEquals("0000", Telegram.rspCode(reply));
            }
        }
        assertEquals(5, coreView.calls());
        assertEquals(5, relay.ledger.count());
    }

    @Test
    void coreRejectionsAreB2xxAndDone() throws Exception {
        String poor = newGuid();
        String nowhere = newGuid();
        byte[] insufficient;
        byte[] unknownAccount;
        try (Channel channel = Channel.open(relay.port)) {
            insufficient = channel.send(transfer(poor, CoreSimulator.OPENING_BALANCE + 1, "too much"));
            unknownAccount = channel.send(Telegram.transferRequest(nowhere, "MOB1", "0000111122223333",
                    Requests.TO, 5, "nobody"));
        }
        assertEquals("TR01R" + poor + "MOB1B201", text(insufficient));
        assertEquals("TR01R" + nowhere + "MOB1B202", text(unknownAccount));
        assertEquals("DONE", relay.ledger.row(poor).get("state"));
        assertEquals("B201", relay.ledger.row(poor).get("rsp_code"));
        assertEquals("DONE", relay.ledger.row(nowhere).get("state"));
        assertEquals("B202", relay.ledger.row(nowhere).get("rsp_code"));
        assertEquals(1, coreView.calls(poor));
        assertEquals(1, coreView.calls(nowhere));

        try (Channel channel = Channel.open(relay.port)) {
            assertArrayEquals(insufficient, channel.send(transfer(poor, CoreSimulator.OPENING_BALANCE + 1, "too much")));
        }
        assertEquals(1, coreView.calls(poor));
    }

    @Test
    void coreFailureIsE500AndDone() throws Exception {
        String guid = newGuid();
        byte[] reply;
        try (Channel channel = Channel.open(relay.port)) {
            reply = channel.send(transfer(guid, 700, "FAIL please"));
        }
        assertEquals("TR01R" + guid + "MOB1E500", text(reply));
        assertEquals("DONE", relay.ledger.row(guid).get("state"));
        assertEquals("E500", relay.ledger.row(guid).get("rsp_code"));
        assertArrayEquals(reply, (byte[]) relay.ledger.row(guid).get("response"));
        assertEquals(1, coreView.calls(guid));
        assertEquals(CoreSimulator.OPENING_BALANCE, core.balance(Requests.FROM));
    }

    @Test
    void sameGuidWithDifferentBytesIsE904AndTouchesNothing() throws Exception {
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            channel.send(transfer(guid, 10_000, "lunch money"));
        }
        Map<String, Object> before = relay.ledger.row(guid);
        byte[] reply;
        try (Channel channel = Channel.open(relay.port)) {
            reply = channel.send(transfer(guid, 20_000, "lunch money"));
        }
        assertEquals("TR01R" + guid + "MOB1E904", text(reply));
        Map<String, Object> after = relay.ledger.row(guid);
        assertEquals(before.get("state"), after.get("state"));
        assertEquals(before.get("updated_at"), after.get("updated_at"));
        assertEquals(before.get("attempts"), after.get("attempts"));
        assertArrayEquals((byte[]) before.get("request"), (byte[]) after.get("request"));
        assertArrayEquals((byte[]) before.get("response"), (byte[]) after.get("response"));
        assertEquals(1, coreView.calls(guid));
    }

    @Test
    void invalidRequestsAreE400WithNoRowAndNoCoreCall() throws Exception {
        String guid = newGuid();
        String valid = text(transfer(guid));
        Map<String, String> invalid = Map.ofEntries(
                Map.entry("guid not alphanumeric", valid.substring(0, 5) + "0123456789ABCDEF0123456789ABCDE-" + valid.substring(37)),
                Map.entry("kind not Q", valid.substring(0, 4) + "R" + valid.substring(5)),
                Map.entry("unknown tx_code", "TR02" + valid.substring(4)),
                Map.entry("amount zero", valid.substring(0, 77) + "000000000000000" + valid.substring(92)),
                Map.entry("amount not digits", valid.substring(0, 77) + "00000000000010A" + valid.substring(92)),
                Map.entry("account with a space inside", valid.substring(0, 45) + "1002 03004005006" + valid.substring(61)),
                Map.entry("empty account", valid.substring(0, 61) + " ".repeat(16) + valid.substring(77)),
                Map.entry("account with a leading space", valid.substring(0, 61) + " " + valid.substring(61, 76) + valid.substring(77)),
                Map.entry("channel not letters and digits", valid.substring(0, 37) + "00-1" + valid.substring(41)),
                Map.entry("body too short", valid.substring(0, 100)),
                Map.entry("body too long", valid + "X"),
                Map.entry("rsp_code not blank", valid.substring(0, 41) + "0000" + valid.substring(45)));
        try (Channel channel = Channel.open(relay.port)) {
            for (Map.Entry<String, String> bad : invalid.entrySet()) {
                byte[] request = bad.getValue().getBytes(StandardCharsets.US_ASCII);
                byte[] reply = channel.send(request);
                assertEquals(45, reply.length, bad.getKey());
                assertEquals("E400", Telegram.rspCode(reply), bad.getKey());
                assertEquals('R', reply[Telegram.KIND], bad.getKey());
                assertArrayEquals(Arrays.copyOfRange(request, 5, 41), Arrays.copyOfRange(reply, 5, 41), bad.getKey());
            }
            byte[] nonAscii = transfer(guid);
            nonAscii[100] = (byte) 0xE9;
            assertEquals("E400", Telegram.rspCode(channel.send(nonAscii)));
            // the connection still serves a valid telegram after all that
            assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
        }
        assertNull(relay.ledger.row(guid));
        assertEquals(1, relay.ledger.count());
        assertEquals(1, coreView.calls());
    }

    @Test
    void unreadableFrameClosesThatConnectionAndOthersAreServed() throws Exception {
        try (Channel bystander = Channel.open(relay.port)) {
            try (Channel garbage = Channel.open(relay.port)) {
                garbage.writeRaw("XY12TR01Q".getBytes(StandardCharsets.US_ASCII));
                assertTrue(garbage.closedByRelay());
            }
            try (Channel shortFrame = Channel.open(relay.port)) {
                shortFrame.writeRaw("0010TR01Q01234".getBytes(StandardCharsets.US_ASCII));
                assertTrue(shortFrame.closedByRelay());
            }
            assertEquals("0000", Telegram.rspCode(bystander.send(transfer(newGuid()))));
        }
        assertEquals(1, relay.ledger.count());
    }

    @Test
    void ledgerRowIsWrittenBeforeTheCoreIsCalled() throws Exception {
        relay.close();
        core.close();
        core = CoreSimulator.start(0, 1_500);
        coreView = new CoreClient(core.url());
        relay = RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start();
        String guid = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            channel.write(transfer(guid, 10_000, "SLOW but sure"));
            dev.idempotentrelay.support.Await.until("the core received the POST", java.time.Duration.ofSeconds(10),
                    () -> coreView.calls(guid) == 1);
            // the core holds the call: the claim is already committed and visible from another connection
            Map<String, Object> row = relay.ledger.row(guid);
            assertEquals("SENT", row.get("state"));
            assertEquals(1, ((Number) row.get("attempts")).intValue());
            assertFalse(row.get("response") != null);
        }
    }
}
