package dev.weft.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code weft demo} sends the embedded brokers' log lines to a file: Kafka's loggers write there and not
 * to the console while diverted, Weft's own lines stay on the console, and closing puts Kafka's back.
 */
class KafkaLogFileTest {

    @Test
    void kafkasLinesGoToTheFileAndWeftsDoNot() throws Exception {
        KafkaLogFile diverted = KafkaLogFile.divert();
        Path file = diverted.path();
        try {
            LoggerFactory.getLogger("kafka.controller.QuorumController").warn("Exceptionally slow controller event");
            LoggerFactory.getLogger("org.apache.kafka.raft.KafkaRaftClient").error("raft trouble, as a broker logs it");
            LoggerFactory.getLogger("state.change.logger").warn("state change chatter");
            LoggerFactory.getLogger("dev.weft.proxy.cli.Demo").warn("a line of Weft's own");
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            for (String name : KafkaLogFile.KAFKA_LOGGERS) {
                assertFalse(context.getLogger(name).isAdditive(), name + " is not also printed on the console");
            }
        } finally {
            diverted.close();
        }
        String written = Files.readString(file);
        try {
            assertTrue(written.contains("WARN") && written.contains("Exceptionally slow controller event"), written);
            assertTrue(written.contains("raft trouble, as a broker logs it"), written);
            assertTrue(written.contains("state change chatter"), written);
            assertFalse(written.contains("a line of Weft's own"), written);
            Logger kafka = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("kafka");
            assertTrue(kafka.isAdditive(), "back on the console after close");
            assertNull(kafka.getAppender("weft-demo-kafka-log"));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
