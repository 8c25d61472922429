package dev.weft.proxy.testing;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Resolves every name under {@code .weft.test} to 127.0.0.1 in the test JVM (registered through
 * {@code META-INF/services}), so SNI gateways can be tested with real per-broker host names without
 * touching the machine's DNS. Every other name goes to the JDK's own resolver.
 */
public final class TestNamesResolverProvider extends InetAddressResolverProvider {

    public static final String DOMAIN = ".weft.test";

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                if (host.toLowerCase(Locale.ROOT).endsWith(DOMAIN)) {
                    return Stream.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
                }
                return builtin.lookupByName(host, policy);
            }

            @Override
            public String lookupByAddress(byte[] addr) throws UnknownHostException {
                return builtin.lookupByAddress(addr);
            }
        };
    }

    @Override
    public String name() {
        return "weft-test-names";
    }
}
