package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelExecutionException;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.sql.SqlConstants;
import org.apache.camel.component.sql.SqlProducer;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ledger-write:} component in a real Camel context on a real SQLite file: the relay's claim SQL file (its
 * {@code {{relay.ledger.now}}} placeholders and {@code :#name} parameters) run by the group-commit writer, or, without
 * one, by camel-sql's own producer on the pool; either way the update count in {@code CamelSqlUpdateCount}.
 */
class LedgerWriteComponentTest {

    @TempDir
    Path dir;

    private HikariDataSource pool;
    private CamelContext camel;
    private String url;

    @BeforeEach
    void open() throws Exception {
        url = "jdbc:sqlite:" + dir.resolve("ledger.db") + "?journal_mode=WAL&synchronous=FULL&busy_timeout=5000";
        pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setMaximumPoolSize(4);
        new LedgerMigrations(pool, LedgerDialect.SQLITE).migrate(line -> { });
    }

    @AfterEach
    void close() throws Exception {
        if (camel != null) {
            camel.stop();
        }
        pool.close();
    }

    private void start(SqliteGroupCommit groupCommit) throws Exception {
        camel = new DefaultCamelContext();
        LedgerDialect.SQLITE.sql().forEach(camel.getPropertiesComponent()::addInitialProperty);
        camel.getPropertiesComponent().addInitialProperty("relay.ledger.relay", RelayName.literal("test-relay"));
        LedgerWriteComponent writes = new LedgerWriteComponent(groupCommit);
        writes.setDataSource(pool);
        camel.addComponent("ledger-write", writes);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:claim").to("ledger-write:classpath:sql/claim-new-guid.sql");
            }
        });
        camel.start();
    }

    private Exchange claim(String guid, byte[] request) {
        Map<String, Object> headers = new HashMap<>();
        headers.put("guid", guid);
        headers.put("txCode", "TR01");
        headers.put("request", request);
        Exchange exchange = camel.createProducerTemplate().send("direct:claim", e -> e.getIn().setHeaders(headers));
        return exchange;
    }

    private int count(Exchange exchange) {
        if (exchange.getException() != null) {
            throw new AssertionError("the write failed", exchange.getException());
        }
        return exchange.getIn().getHeader(SqlConstants.SQL_UPDATE_COUNT, Integer.class);
    }

    private String createdAt(String guid) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("SELECT created_at FROM tx WHERE guid = ?")) {
            ps.setString(1, guid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Test
    void withGroupCommitTheWriteIsCommittedByTheWriterAndCountedInTheHeader() throws Exception {
        SqliteGroupCommit groupCommit = new SqliteGroupCommit(pool, 512, 1000);
        start(groupCommit);
        LedgerWriteEndpoint endpoint = camel.getEndpoint("ledger-write:classpath:sql/claim-new-guid.sql", LedgerWriteEndpoint.class);
        assertInstanceOf(ParsedNamedParameters.class, endpoint.statement().getPrepareStatementStrategy());
        assertInstanceOf(HandedOffWriteProducer.class, endpoint.createProducer());

        assertEquals(1, count(claim("GC00000000000000000000000000000A", new byte[] {1})));
        assertNotNull(createdAt("GC00000000000000000000000000000A"), "committed when the exchange went on");
        assertTrue(createdAt("GC00000000000000000000000000000A").matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"),
                "the {{relay.ledger.now}} placeholder of the file resolved to SQLite's clock");
        assertEquals(0, count(claim("GC00000000000000000000000000000A", new byte[] {1})));
        assertEquals(2, groupCommit.commitsAndWrites()[1]);

        // a write the database refuses (request is NOT NULL) fails its exchange with the SQLException, and only it
        Exchange refused = claim("GC00000000000000000000000000000B", null);
        assertInstanceOf(SQLException.class, refused.getException());
        assertTrue(refused.getException().getMessage().contains("NOT NULL"), refused.getException().getMessage());
        assertEquals(1, count(claim("GC00000000000000000000000000000C", new byte[] {1})));

        camel.stop(); // stops the writer with the component
        camel = null;
        SQLException stopped = assertThrows(SQLException.class,
                () -> groupCommit.write("SELECT 1", java.util.List.of(), endpoint.statement().getPrepareStatementStrategy()));
        assertEquals("the ledger writer is stopped", stopped.getMessage());
    }

    @Test
    void withoutGroupCommitCamelSqlWritesOnThePoolAndEveryWriteCommitsAlone() throws Exception {
        start(null);
        LedgerWriteEndpoint endpoint = camel.getEndpoint("ledger-write:classpath:sql/claim-new-guid.sql", LedgerWriteEndpoint.class);
        assertInstanceOf(SqlProducer.class, endpoint.createProducer());
        // the parameter count comes from the file (guid, txCode, request): camel-sql never asks the driver for
        // parameter metadata, which pgjdbc fetches from PostgreSQL in a round trip of its own at every execution
        assertEquals(3, endpoint.statement().getParametersCount());

        assertEquals(1, count(claim("SOLO000000000000000000000000000A", new byte[] {1})));
        assertNotNull(createdAt("SOLO000000000000000000000000000A"));
        assertEquals(0, count(claim("SOLO000000000000000000000000000A", new byte[] {1})));
        CamelExecutionException refused = assertThrows(CamelExecutionException.class,
                () -> camel.createProducerTemplate().sendBodyAndHeaders("direct:claim", null,
                        Map.of("guid", "SOLO000000000000000000000000000B", "txCode", "TR01")));
        assertTrue(refused.getCause().getMessage().contains("request"), refused.getCause().getMessage());
    }

    /**
     * A ledger write binds its values by the one parser of named parameters: a statement that parser leaves to
     * camel-sql's own strategy is refused when its endpoint is made, with the URI and why, not at its first write.
     */
    @Test
    void aWriteThatTheParserOfNamedParametersLeavesToCamelSqlIsRefusedWhenItsEndpointIsMade() throws Exception {
        start(new SqliteGroupCommit(pool, 512, 1000));
        for (String uri : java.util.List.of("ledger-write:DELETE FROM tx WHERE guid = :#${header.guid}",
                "ledger-write:DELETE FROM tx WHERE guid IN (:#in:guids)",
                "ledger-write:classpath:sql/claim-new-guid.sql?allowNamedParameters=false")) {
            Exception refused = assertThrows(Exception.class, () -> camel.getEndpoint(uri));
            Throwable cause = refused;
            while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
                cause = cause.getCause();
            }
            assertTrue(cause.getMessage().contains(": a ledger write takes :#name parameters only"), uri + ": " + cause.getMessage());
        }
        assertEquals(1, count(claim("PARSED00000000000000000000000000", new byte[] {1})), "a write of :#name parameters goes");
    }
}
