package dev.idempotentrelay.jobs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Properties;
import javax.sql.DataSource;
import org.quartz.impl.jdbcjobstore.JobStoreTX;
import org.quartz.impl.jdbcjobstore.PostgreSQLDelegate;
import org.quartz.simpl.SimpleThreadPool;
import org.quartz.utils.DBConnectionManager;

/**
 * The Quartz properties of relay.jobs.clustered: the timers of resolve, reprocess and purge in Quartz's JDBC job
 * store on the PostgreSQL ledger (the tables of {@code schema-quartz-postgresql.sql}), clustered, so that the relays
 * on one ledger share each timer and each run fires on one relay at a time; when a relay dies, another takes its
 * timers over once it missed its check-ins. camel-quartz creates its scheduler from these (QuartzComponent's
 * properties) and names it {@link #SCHEDULER_NAME} followed by the Camel context's name, so relays of one cluster
 * must keep camel.main.name as it is.
 */
public final class ClusteredJobStore {

    /** The scheduler's name, SCHED_NAME in Quartz's tables before camel-quartz adds the Camel context's name. */
    public static final String SCHEDULER_NAME = "relay-jobs";
    /** Worker threads: one per timed route (each is stateful: one run at a time across the cluster). */
    private static final int THREADS = 3;
    /** Quartz's INSTANCE_NAME is at most 200 characters, its ENTRY_ID (the id and a 13-digit counter) 95. */
    private static final int MOST_HOST_CHARS = 40;

    private ClusteredJobStore() {
    }

    /**
     * The scheduler's properties, its connections taken from {@code ledger}, registered with Quartz under a name of
     * this relay's own (Quartz's {@link DBConnectionManager} is one for the JVM).
     */
    public static Properties properties(DataSource ledger, String instanceId, long checkinIntervalMs) {
        String dataSource = "ledger-" + instanceId;
        DBConnectionManager.getInstance().addConnectionProvider(dataSource, new LedgerConnectionProvider(ledger));
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", SCHEDULER_NAME);
        p.setProperty("org.quartz.scheduler.instanceId", instanceId);
        p.setProperty("org.quartz.threadPool.class", SimpleThreadPool.class.getName());
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(THREADS));
        p.setProperty("org.quartz.jobStore.class", JobStoreTX.class.getName());
        p.setProperty("org.quartz.jobStore.driverDelegateClass", PostgreSQLDelegate.class.getName());
        p.setProperty("org.quartz.jobStore.dataSource", dataSource);
        p.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.clusterCheckinInterval", Long.toString(checkinIntervalMs));
        // a trigger is acquired under Quartz's row lock (QRTZ_LOCKS), not only by its guarded state change
        p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
        // as the in-memory store: a run up to a minute late (a relay taking over a dead one's timers) still fires
        p.setProperty("org.quartz.jobStore.misfireThreshold", "60000");
        return p;
    }

    /**
     * An id of this relay unique in the cluster, readable in QRTZ_SCHEDULER_STATE and QRTZ_FIRED_TRIGGERS: host,
     * channel port (one relay per port on a host) and start time in milliseconds (as Quartz's own AUTO id), such as
     * {@code relay-a-9100-1733050000000} (no colon: the id is part of the scheduler's JMX name).
     */
    public static String instanceId(int channelPort) {
        return host() + "-" + channelPort + "-" + System.currentTimeMillis();
    }

    /** This machine's host name, at most {@value #MOST_HOST_CHARS} characters ("localhost" when it has none). */
    public static String host() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host.length() > MOST_HOST_CHARS ? host.substring(0, MOST_HOST_CHARS) : host;
    }
}
