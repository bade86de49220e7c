package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.SpecOracle;
import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random and mutated frames against the running relay, seeded so that a failure can be replayed:
 * {@code mvn verify -Dit.test=FuzzIT -Dfuzz.seed=N -Dfuzz.cases=M}. The relay never dies, answers or
 * closes every frame as SPEC section 3 says, never stores an invalid request, and serves a valid one after.
 */
class FuzzIT {

    private static final Set<String> VALID_CODES = Set.of("0000", "B201", "B202", "E500", "E901", "E902", "E903", "E904");

    @TempDir
    Path dir;

    @Test
    void tenThousandRandomAndMutatedFrames() throws Exception {
        long seed = Long.getLong("fuzz.seed", 20261130L);
        int cases = Integer.getInteger("fuzz.cases", 10_000);
        Random random = new Random(seed);
        String replay = " (replay with -Dfuzz.seed=" + seed + ")";

        try (CoreSimulator core = CoreSimulator.start(0, 1_000);
                RelayUnderTest relay = RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start()) {
            List<byte[]> validSent = new ArrayList<>();
            Set<String> validGuids = new HashSet<>();
            int replies = 0;
            int closes = 0;
            int e400 = 0;
            Channel channel = Channel.open(relay.port);
            try {
                for (int i = 0; i < cases; i++) {
                    byte[] frame = fuzzFrame(random, validSent);
                    String at = "case " + i + replay;
                    int declared = declaredLength(frame);
                    channel.writeRaw(frame);
                    if (declared < Telegram.HEADER_LENGTH) {
                        assertTrue(channel.closedByRelay(), "an unreadable frame closes the connection, " + at);
                        closes++;
                        channel.close();
                        channel = Channel.open(relay.port);
                        continue;
                    }
                    byte[] message = java.util.Arrays.copyOfRange(frame, 4, frame.length);
                    byte[] reply = Frames.read(channel.input());
                    replies++;
                    assertTrue(reply != null && reply.length >= Telegram.HEADER_LENGTH, "a readable frame is answered, " + at);
                    String code = Telegram.rspCode(reply);
                    if (SpecOracle.validRequest(message)) {
                        assertTrue(VALID_CODES.contains(code), code + " for a valid request, " + at);
                        validSent.add(message);
                        validGuids.add(Telegram.guid(message));
                    } else {
                        assertEquals("E400", code, "an invalid request, " + at);
                        assertEquals(Telegram.HEADER_LENGTH, reply.length, at);
                        e400++;
                    }
                }
                String last = newGuid();
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(last))), "a valid telegram after the fuzz" + replay);
                validGuids.add(last);
            } finally {
                channel.close();
            }

            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + relay.db);
                    Statement st = c.createStatement();
                    ResultSet rows = st.executeQuery("SELECT guid, request FROM tx")) {
                int n = 0;
                while (rows.next()) {
                    n++;
                    assertTrue(SpecOracle.validRequest(rows.getBytes("request")), "stored an invalid request " + rows.getString("guid") + replay);
                    assertTrue(validGuids.contains(rows.getString("guid")), rows.getString("guid") + replay);
                }
                assertEquals(validGuids.size(), n, "one row per valid GUID sent" + replay);
            }
            CoreClient coreView = new CoreClient(core.url());
            for (String guid : validGuids) {
                assertTrue(coreView.calls(guid) <= 1, guid + replay);
            }
            System.out.printf("fuzz seed %d: %d frames, %d answered (%d E400), %d connections closed, %d valid GUIDs%n",
                    seed, cases, replies, e400, closes, validGuids.size());
            assertTrue(e400 > cases / 3 && closes > cases / 20 && validGuids.size() > cases / 20,
                    "the fuzz covered each kind of frame" + replay);
        }
    }

    /** The length a frame declares, or -1 when its prefix is not 4 digits. */
    private static int declaredLength(byte[] frame) {
        int n = 0;
        for (int i = 0; i < 4; i++) {
            if (i >= frame.length || frame[i] < '0' || frame[i] > '9') {
                return -1;
            }
            n = n * 10 + frame[i] - '0';
        }
        return n;
    }

    private static String randomGuid(Random random) {
        String alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private static byte[] validRequest(Random random) {
        long amount = 1 + random.nextInt(random.nextBoolean() ? 100_000 : Integer.MAX_VALUE);
        String memo = random.nextInt(20) == 0 ? "FAIL fuzz" : "fuzz " + random.nextInt(1000);
        String from = random.nextInt(30) == 0 ? "0000" + random.nextInt(9999) : Long.toString(1_000_000L + random.nextInt(1_000_000));
        return Telegram.transferRequest(randomGuid(random), "FZ" + random.nextInt(10), from, "2003004005006007", amount, memo);
    }

    /** One frame: mostly a request with something wrong in it, sometimes a valid one or a resend, sometimes noise. */
    private static byte[] fuzzFrame(Random random, List<byte[]> validSent) {
        int kind = random.nextInt(100);
        if (kind < 30) { // a valid request with bytes overwritten
            byte[] m = validRequest(random);
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                m[random.nextInt(m.length)] = (byte) (random.nextBoolean() ? 32 + random.nextInt(95) : random.nextInt(256));
            }
            return Frames.frame(m);
        }
        if (kind < 45) { // a valid request cut short or with bytes added
            byte[] m = validRequest(random);
            int length = random.nextBoolean() ? 45 + random.nextInt(67) : 113 + random.nextInt(60);
            byte[] out = new byte[length];
            for (int i = 0; i < length; i++) {
                out[i] = i < m.length ? m[i] : (byte) random.nextInt(256);
            }
            return Frames.frame(out);
        }
        if (kind < 55) { // one field replaced by something it may not hold
            byte[] m = validRequest(random);
            int[][] fields = {{0, 4}, {4, 1}, {5, 32}, {37, 4}, {41, 4}, {45, 16}, {61, 16}, {77, 15}};
            int[] field = fields[random.nextInt(fields.length)];
            String[] junk = {" ", "-", "0", "\t", "X", "Q", "é"};
            for (int i = 0; i < field[1]; i++) {
                if (random.nextInt(3) == 0) {
                    byte[] b = junk[random.nextInt(junk.length)].getBytes(StandardCharsets.ISO_8859_1);
                    m[field[0] + i] = b[0];
                }
            }
            return Frames.frame(m);
        }
        if (kind < 65) { // noise without a readable prefix
            byte[] noise = new byte[1 + random.nextInt(80)];
            random.nextBytes(noise);
            noise[0] = (byte) ('A' + random.nextInt(26));
            return noise;
        }
        if (kind < 72) { // a readable prefix declaring less than a header, the bytes all there
            byte[] body = new byte[random.nextInt(45)];
            random.nextBytes(body);
            return Frames.frame(body);
        }
        if (kind < 80) { // a readable prefix and random bytes of that length
            byte[] body = new byte[45 + random.nextInt(200)];
            random.nextBytes(body);
            return Frames.frame(body);
        }
        if (kind < 90 || validSent.isEmpty()) { // a valid request
            return Frames.frame(validRequest(random));
        }
        byte[] earlier = validSent.get(random.nextInt(validSent.size())); // a resend
        return Frames.frame(earlier);
    }
}
