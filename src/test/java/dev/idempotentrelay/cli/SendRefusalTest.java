package dev.idempotentrelay.cli;

import static dev.idempotentrelay.support.Refusal.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Requests;
import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.Frames;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code send} checks every field against SPEC section 2 before it sends: a field that does not fit is one line and
 * exit 2, and the listener it would have sent to receives no connection.
 */
class SendRefusalTest {

    private static final String GUID = "0123456789ABCDEF0123456789ABCDEF";

    @Test
    void aFieldThatDoesNotFitIsOneLineExit2AndNothingIsSent() throws Exception {
        try (ServerSocket listener = new ServerSocket(0)) {
            String port = Integer.toString(listener.getLocalPort());
            assertRefusedUnsent(listener, "idempotent-relay: send: --guid must be 32 letters and digits, not '0123456789ABCDEF'",
                    send(port, "--guid", "0123456789ABCDEF"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --guid must be 32 letters and digits, not '0123456789ABCDEF0123456789ABCDE-'",
                    send(port, "--guid", "0123456789ABCDEF0123456789ABCDE-"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --memo must be at most 20 printable ASCII characters, not 'déjeuner'",
                    send(port, "--memo", "déjeuner"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --memo must be at most 20 printable ASCII characters, not 'lunch money for the week'",
                    send(port, "--memo", "lunch money for the week"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --memo must be at most 20 printable ASCII characters, not 'tab\there'",
                    send(port, "--memo", "tab\there"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --from must be an account of 1 to 16 letters and digits, not '10020030040050067'",
                    send(port, "--from", "10020030040050067"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --to must be an account of 1 to 16 letters and digits, not '2003 004'",
                    send(port, "--to", "2003 004"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --channel must be 1 to 4 letters and digits, not 'MOBILE'",
                    send(port, "--channel", "MOBILE"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --amount must be 1 to 15 digits, more than 0, not '0'",
                    send(port, "--amount", "0"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --amount must be 1 to 15 digits, more than 0, not '1000000000000000'",
                    send(port, "--amount", "1000000000000000"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --amount must be 1 to 15 digits, more than 0, not '-5'",
                    send(port, "--amount", "-5"));
            assertRefusedUnsent(listener, "idempotent-relay: send: --amount is required",
                    OneShot.run("send", "--port", port, "--guid", GUID, "--from", Requests.FROM, "--to", Requests.TO));
        }
    }

    @Test
    void fieldsAtTheirWidthsAreSentAsTheRequestOfSpecSection2() throws Exception {
        try (ServerSocket listener = new ServerSocket(0)) {
            listener.setSoTimeout(10_000);
            Thread sender = new Thread(() -> OneShot.run("send", "--port", Integer.toString(listener.getLocalPort()),
                    "--guid", GUID, "--channel", "MOB1", "--from", "A234567890123456", "--to", "B2", "--amount", "999999999999999",
                    "--memo", "~20 printable chars!"));
            sender.start();
            try (Socket connection = listener.accept()) {
                byte[] request = Frames.read(connection.getInputStream());
                assertEquals("TR01Q" + GUID + "MOB1    A234567890123456B2              999999999999999~20 printable chars!",
                        Requests.text(request));
                Frames.write(connection.getOutputStream(), Telegram.reply(request, "E902", new byte[0]));
            }
            sender.join(10_000);
        }
    }

    private static OneShot send(String port, String... replaced) {
        List<String> args = new ArrayList<>(List.of("send", "--port", port, "--guid", GUID, "--from", Requests.FROM,
                "--to", Requests.TO, "--amount", "100", "--memo", "lunch", "--channel", "MOB1"));
        for (int i = 0; i < replaced.length; i += 2) {
            int at = args.indexOf(replaced[i]);
            args.set(at + 1, replaced[i + 1]);
        }
        return OneShot.run(args.toArray(String[]::new));
    }

    /** The refusal, and no connection waiting at the listener: the command has returned, so a connect would be queued. */
    private static void assertRefusedUnsent(ServerSocket listener, String line, OneShot run) throws Exception {
        assertRefused(line, run);
        listener.setSoTimeout(100);
        assertThrows(SocketTimeoutException.class, listener::accept, "send connected although it refused: " + line);
    }
}
