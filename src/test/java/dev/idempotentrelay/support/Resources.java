package dev.idempotentrelay.support;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test started (cores, relays, servers), closed in reverse order when the test ends:
 * {@code @RegisterExtension final Resources running = new Resources();} then {@code running.keep(x)}.
 */
public final class Resources implements AutoCloseable, AfterEachCallback {

    private final List<AutoCloseable> open = new ArrayList<>();

    public <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        close();
    }

    @Override
    public void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }
}
