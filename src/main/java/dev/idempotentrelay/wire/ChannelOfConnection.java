package dev.idempotentrelay.wire;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.netty.NettyConstants;

/**
 * Reads the channel id that a mutual-TLS connection may send for into variable {@code channelOfConnection}: the
 * subject CN of the client certificate that the handshake verified (SPEC section 8), from the TLS session that
 * camel-netty puts in header {@code CamelNettySSLSession}. Without a client certificate (plain TCP, or TLS without
 * a truststore) the variable stays unset and the route's check is skipped. A verified certificate without a CN sets
 * it empty, which matches no channel. The route decides (receive-telegram, choice channel-of-connection).
 */
public class ChannelOfConnection implements Processor {

    @Override
    public void process(Exchange exchange) {
        SSLSession session = exchange.getMessage().getHeader(NettyConstants.NETTY_SSL_SESSION, SSLSession.class);
        if (session == null) {
            return;
        }
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return; // TLS without client certificates
        }
        if (chain.length > 0 && chain[0] instanceof X509Certificate certificate) {
            exchange.setVariable("channelOfConnection", commonName(certificate.getSubjectX500Principal()));
        }
    }

    /** The subject's CN, or "" when it has none (or more than one). */
    static String commonName(X500Principal subject) {
        String cn = "";
        try {
            for (Rdn rdn : new LdapName(subject.getName(X500Principal.RFC2253)).getRdns()) {
                if ("CN".equalsIgnoreCase(rdn.getType())) {
                    if (!cn.isEmpty()) {
                        return "";
                    }
                    cn = String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            return "";
        }
        return cn;
    }
}
