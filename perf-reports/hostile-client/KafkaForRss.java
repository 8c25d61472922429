import dev.weft.testkit.KafkaCluster;

/** A one-broker Kafka in its own JVM for the RSS run: prints "bootstrap HOST:PORT", then runs until killed. */
public class KafkaForRss {
    public static void main(String[] args) throws Exception {
        KafkaCluster kafka = KafkaCluster.builder().brokers(1).build();
        kafka.start();
        System.out.println("bootstrap " + kafka.bootstrapServers());
        System.out.flush();
        Thread.currentThread().join();
    }
}
