package dev.weft.proxy.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for TLS tests: a CA, and certificates it signs for
 * {@code localhost} / {@code 127.0.0.1}, written as PEM files and PKCS12 stores in a directory.
 */
public final class TestPki {

    public static final String PASSWORD = "test-password";
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;
    private final KeyPair caKeys;
    private final X509Certificate caCert;

    public TestPki(Path dir) throws Exception {
        this.dir = dir;
        this.caKeys = keyPair();
        X500Name name = new X500Name("CN=Weft Test CA");
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(), notBefore(), notAfter(), name, caKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        this.caCert = sign(b, caKeys);
        writePem(dir.resolve("ca.pem"), caCert);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", caCert);
        store(trust, dir.resolve("truststore.p12"));
    }

    /** The CA certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** A PKCS12 trust store holding the CA (password {@link #PASSWORD}). */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /**
     * Issues a certificate for localhost, 127.0.0.1 and any {@code extraDnsNames} (wildcards allowed);
     * writes NAME.pem, NAME.key (PKCS#8) and NAME.p12.
     */
    public Issued issue(String name, String... extraDnsNames) throws Exception {
        KeyPair keys = keyPair();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                new X500Name("CN=Weft Test CA"), serial(), notBefore(), notAfter(), new X500Name("CN=" + name), keys.getPublic());
        GeneralName[] names = new GeneralName[2 + extraDnsNames.length];
        names[0] = new GeneralName(GeneralName.dNSName, "localhost");
        names[1] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
        for (int i = 0; i < extraDnsNames.length; i++) {
            names[2 + i] = new GeneralName(GeneralName.dNSName, extraDnsNames[i]);
        }
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        X509Certificate cert = sign(b, caKeys);
        Path pem = dir.resolve(name + ".pem");
        Path key = dir.resolve(name + ".key");
        Path p12 = dir.resolve(name + ".p12");
        writePem(pem, cert, caCert);
        writePem(key, keys.getPrivate());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(name, keys.getPrivate(), PASSWORD.toCharArray(), new Certificate[] {cert, caCert});
        store(ks, p12);
        return new Issued(pem, key, p12);
    }

    /**
     * Adds an SSL listener named "SSL" to a broker, after its PLAINTEXT one (the cluster's own default):
     * {@code broker}'s certificate, trusting this CA (Kafka checks at start that a client with the
     * listener's settings can talk to it, so the trust store is needed even without client certificates).
     */
    public dev.weft.testkit.KafkaCluster.Builder sslListener(dev.weft.testkit.KafkaCluster.Builder builder, Issued broker) {
        return builder
                .listener("PLAINTEXT", org.apache.kafka.common.security.auth.SecurityProtocol.PLAINTEXT)
                .listener("SSL", org.apache.kafka.common.security.auth.SecurityProtocol.SSL)
                .brokerProperty("listener.name.ssl.ssl.keystore.type", "PKCS12")
                .brokerProperty("listener.name.ssl.ssl.keystore.location", broker.keyStore().toString())
                .brokerProperty("listener.name.ssl.ssl.keystore.password", PASSWORD)
                .brokerProperty("listener.name.ssl.ssl.truststore.type", "PKCS12")
                .brokerProperty("listener.name.ssl.ssl.truststore.location", trustStore().toString())
                .brokerProperty("listener.name.ssl.ssl.truststore.password", PASSWORD);
    }

    /** PEM chain, PEM key, and PKCS12 store (password {@link #PASSWORD}) of one issued certificate. */
    public record Issued(Path certificatePem, Path keyPem, Path keyStore) {
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder b, KeyPair signer) throws Exception {
        X509CertificateHolder holder = b.build(new JcaContentSignerBuilder("SHA256withRSA").build(signer.getPrivate()));
        return new JcaX509CertificateConverter().getCertificate(holder);
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    private static Date notBefore() {
        return Date.from(Instant.now().minus(Duration.ofHours(1)));
    }

    private static Date notAfter() {
        return Date.from(Instant.now().plus(Duration.ofDays(2)));
    }

    private static void writePem(Path file, Object... objects) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(text)) {
            for (Object o : objects) {
                w.writeObject(o instanceof java.security.PrivateKey k ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null) : o);
            }
        }
        Files.writeString(file, text.toString());
    }

    private static void store(KeyStore ks, Path file) throws Exception {
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, PASSWORD.toCharArray());
        }
    }

    /** The issuer of the certificate a TLS server presents in a new handshake now. */
    public static String serverIssuer(String host, int port) throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                // only reads which certificate is served
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(host, port)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getIssuerX500Principal().getName();
        }
    }

    /** The subject of a CA certificate file: the issuer of what it signed. */
    public static String issuerOf(Path caPem) throws Exception {
        try (InputStream in = Files.newInputStream(caPem)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSubjectX500Principal().getName();
        }
    }
}
