package dev.idempotentrelay.support;

import dev.idempotentrelay.core.CoreSimulator;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of the tests that need, for each test, a fresh core simulator and a relay on a fresh ledger file. */
public abstract class CoreAndRelayTest {

    @TempDir
    protected Path dir;

    protected CoreSimulator core;
    protected CoreClient coreView;
    protected RelayUnderTest relay;

    @BeforeEach
    void startCoreAndRelay() throws Exception {
        core = CoreSimulator.start(0, 1_000);
        coreView = new CoreClient(core.url());
        relay = RelayUnderTest.on(dir.resolve("ledger.db"), core.url()).start();
    }

    @AfterEach
    void stopCoreAndRelay() {
        relay.close();
        core.close();
    }
}
