package dev.idempotentrelay;

import dev.idempotentrelay.ledger.ReplicationCheck;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertyInject;
import org.apache.camel.model.Model;

/**
 * The routes held back by the relay.*.enabled switches, as Camel's route filter by endpoint: the listener, the timers of
 * the timed routes or the REST verbs are then not loaded at all (the direct: routes they call stay, for the one-shot
 * commands). A route's autoStartup is a literal boolean in Camel's YAML DSL schema, so the switches cannot stand in
 * the route files; and loaded but stopped would not do: a stopped route makes GET /health DOWN, and a platform-http
 * route cannot even be created without the admin endpoint's server. Named last by {@code camel.main.configuration-classes}:
 * the replication check it asks about is {@link LedgerBeans}'.
 */
public class HeldBackRoutes implements CamelConfiguration {

    @PropertyInject("relay.channel.enabled")
    private boolean channel;
    @PropertyInject("relay.jobs.enabled")
    private boolean jobs;
    @PropertyInject("relay.admin.enabled")
    private boolean admin;

    @Override
    public void configure(CamelContext context) {
        List<String> notLoaded = new ArrayList<>();
        if (!channel) {
            // a one-shot command: no listener, no ledger watch (it checks its ledger once, at start)
            notLoaded.addAll(List.of("netty:*", "timer:ledger-commit-watch*"));
        }
        if (!channel || context.getRegistry().lookupByNameAndType("ledgerReplication", ReplicationCheck.class) == null) {
            notLoaded.add("timer:ledger-replication-watch*");
        }
        if (!jobs) {
            notLoaded.add("quartz:*");
        }
        if (!admin) {
            notLoaded.add("rest:*");
        }
        if (!notLoaded.isEmpty()) {
            context.getCamelContextExtension().getContextPlugin(Model.class).setRouteFilterPattern(null, String.join(",", notLoaded));
        }
    }
}
