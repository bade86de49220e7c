package dev.idempotentrelay.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idempotentrelay.support.Requests;
import org.junit.jupiter.api.Test;

/** Account numbers in a log line keep only their last 4 characters, in every form a line can carry them. */
class AccountMaskingFormatterTest {

    private final AccountMaskingFormatter formatter = new AccountMaskingFormatter();

    @Test
    void keyValuesJsonAndRawTelegramsAreMasked() {
        assertEquals("guid G: none -> SENT -> DONE, answered 0000, channel MOB1 from=************5006 to=**** amount=10000",
                formatter.format("guid G: none -> SENT -> DONE, answered 0000, channel MOB1 from=1002003004005006 to=ABCD amount=10000"));
        assertEquals("{\"guid\":\"G\",\"from\":\"************5006\",\"to\":\"****\",\"amount\":5}",
                formatter.format("{\"guid\":\"G\",\"from\":\"1002003004005006\",\"to\":\"A123\",\"amount\":5}"));
        String guid = "0123456789ABCDEF0123456789ABCDEF";
        String request = Requests.text(Requests.transfer(guid));
        assertEquals("TR01Q" + guid + "MOB1    ************5006************6007000000000010000lunch money         ",
                formatter.format(request));
        assertEquals("sent to the core", formatter.format("sent to the core"));
    }

    @Test
    void onlyTheValueOfAFromOrToKeyThatStartsAWordIsMasked() {
        assertEquals("from=****5678, to=****", formatter.format("from=12345678, to=1234"));
        assertEquals("xfrom=12345678 _to=12345678 tox=12345678 to= from=-12345678",
                formatter.format("xfrom=12345678 _to=12345678 tox=12345678 to= from=-12345678"));
        assertEquals("(to=****5678)=x from==123456789", formatter.format("(to=12345678)=x from==123456789"));
        assertEquals("to=****5678", formatter.format("to=12345678"));
    }
}
