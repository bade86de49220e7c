package dev.idempotentrelay.wire;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilter;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The addresses channel connections may come from (relay.channel.allow, {@code --channel-allow CIDR[,CIDR...]}):
 * netty's {@link IpSubnetFilter}, first of the listener's handlers after camel-netty's own SSL handler. A connection
 * from any other address is closed as soon as it is registered, before a byte is read from it or a TLS handshake
 * starts, with a WARN line naming the address. An empty list admits every address. Once it has admitted a
 * connection the filter leaves that connection's pipeline (netty's {@code AbstractRemoteAddressFilter} does so), so it
 * costs nothing per telegram.
 */
@ChannelHandler.Sharable
public class ChannelAllowList extends IpSubnetFilter {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelAllowList.class);

    private final String allowed;

    private ChannelAllowList(List<IpSubnetFilterRule> rules, String allowed) {
        super(rules.isEmpty(), rules);
        this.allowed = allowed;
    }

    /**
     * The filter for a comma-separated list of CIDRs ({@code 10.1.0.0/16}, {@code 192.168.7.12/32}, {@code fd00::/8};
     * a bare address is that one host); blank admits every address.
     *
     * @throws IllegalArgumentException naming the first entry that is not a CIDR
     */
    public static ChannelAllowList of(String cidrs) {
        List<IpSubnetFilterRule> rules = rules(cidrs);
        return new ChannelAllowList(rules, rules.isEmpty() ? "" : String.join(",", cidrs.trim().split("\\s*,\\s*")));
    }

    /** The accepting rules of a CIDR list; checked without any name lookup. */
    static List<IpSubnetFilterRule> rules(String cidrs) {
        List<IpSubnetFilterRule> rules = new ArrayList<>();
        if (cidrs == null || cidrs.isBlank()) {
            return rules;
        }
        for (String entry : cidrs.split(",", -1)) {
            rules.add(rule(entry.trim()));
        }
        return rules;
    }

    private static IpSubnetFilterRule rule(String cidr) {
        int slash = cidr.indexOf('/');
        String address = slash < 0 ? cidr : cidr.substring(0, slash);
        boolean v4 = NetUtil.isValidIpV4Address(address);
        boolean v6 = !v4 && NetUtil.isValidIpV6Address(address);
        int max = v4 ? 32 : 128;
        int prefix = max;
        if (slash >= 0) {
            String bits = cidr.substring(slash + 1);
            prefix = bits.matches("[0-9]{1,3}") ? Integer.parseInt(bits) : -1;
        }
        if (!(v4 || v6) || prefix < 0 || prefix > max) {
            throw new IllegalArgumentException("'" + cidr + "' in --channel-allow (relay.channel.allow) is not a CIDR such as "
                    + "10.1.0.0/16 or 192.168.7.12/32");
        }
        return new IpSubnetFilterRule(NetUtil.createInetAddressFromIpAddressString(address), prefix, IpFilterRuleType.ACCEPT);
    }

    @Override
    protected ChannelFuture channelRejected(ChannelHandlerContext ctx, InetSocketAddress remoteAddress) {
        LOG.warn("closing the connection from {}: the address is not in the channel allow list {}",
                remoteAddress.getAddress().getHostAddress(), allowed);
        return null; // closed at once by the filter, nothing written
    }
}
