package dev.idempotentrelay;

import dev.idempotentrelay.wire.ChannelAllowList;
import dev.idempotentrelay.wire.ChannelOfConnection;
import dev.idempotentrelay.wire.ChannelThreads;
import dev.idempotentrelay.wire.ChannelTlsParameters;
import dev.idempotentrelay.wire.ChannelTransport;
import dev.idempotentrelay.wire.ConnectionGate;
import dev.idempotentrelay.wire.FrameDecoderFactory;
import dev.idempotentrelay.wire.FrameEncoder;
import dev.idempotentrelay.wire.IdleConnectionCloserFactory;
import dev.idempotentrelay.wire.TlsFailureLogger;
import org.apache.camel.BindToRegistry;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertyInject;
import org.apache.camel.component.netty.NettyComponent;
import org.apache.camel.support.jsse.SSLContextParameters;

/**
 * The channel listener's beans, the decoders, encoders and SSL parameters of channel-listener
 * (routes/channel-path.camel.yaml), in Camel's configuration style: a {@link BindToRegistry} per bean, named as the
 * route names it, its settings injected from the {@code relay.channel.*} and {@code relay.tls.*} properties. Camel Main
 * may make a method's bean twice (it post-processes this class twice) and keeps the last: none holds a resource.
 */
public class ChannelBeans implements CamelConfiguration {

    @BindToRegistry
    private final TlsFailureLogger tlsFailureLogger = new TlsFailureLogger();

    @BindToRegistry
    private final FrameDecoderFactory frameDecoder = new FrameDecoderFactory();

    @BindToRegistry
    private final FrameEncoder frameEncoder = new FrameEncoder();

    /** With mutual TLS, the CN of each connection's certificate. */
    @BindToRegistry
    private final ChannelOfConnection channelOfConnection = new ChannelOfConnection();

    @PropertyInject("relay.channel.enabled")
    private boolean channel;

    @PropertyInject("relay.channel.virtual-threads")
    private boolean virtualThreads;

    @PropertyInject("relay.channel.epoll")
    private boolean epoll;

    @PropertyInject("relay.max-in-flight")
    private int maxInFlight;

    @BindToRegistry
    public ChannelAllowList channelAllowList(@PropertyInject("relay.channel.allow") String allow) {
        return ChannelAllowList.of(allow);
    }

    @BindToRegistry
    public ConnectionGate connectionGate(@PropertyInject("relay.channel.max-connections") int maxConnections) {
        ConnectionGate gate = new ConnectionGate();
        gate.setMaxConnections(maxConnections);
        return gate;
    }

    @BindToRegistry
    public IdleConnectionCloserFactory idleConnectionCloser(@PropertyInject("relay.channel.idle-timeout-ms") long idleTimeoutMs) {
        IdleConnectionCloserFactory idle = new IdleConnectionCloserFactory();
        idle.setIdleTimeoutMs(idleTimeoutMs);
        return idle;
    }

    /**
     * Channel security (SPEC section 8): the SSL handler's parameters (ssl, sslContextParameters and needClientAuth of
     * channel-listener), their PKCS12 files opened now with the passwords from the environment; empty, and never read,
     * when relay.tls.keystore is (plain TCP) or the relay listens to no channel.
     */
    @BindToRegistry
    public SSLContextParameters channelTls(CamelContext context, @PropertyInject("relay.tls.keystore") String keystore,
            @PropertyInject("relay.tls.truststore") String truststore) {
        // channel, like every injected field, is set before the beans of methods that return the relay's own types
        return channel ? ChannelTlsParameters.of(keystore, truststore, RelaySecrets.of(context)) : new SSLContextParameters();
    }

    /**
     * The listener's threads, a virtual thread per connection behind an event loop per core or an OS thread per
     * connection, and its sockets on netty's epoll transport where the machine has it.
     */
    @Override
    public void configure(CamelContext context) {
        if (channel) {
            NettyComponent netty = context.getComponent("netty", NettyComponent.class);
            ChannelThreads.configure(netty, virtualThreads, maxInFlight);
            ChannelTransport.configure(netty, epoll);
        }
    }
}
