package dev.weft.proxy.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Sends the embedded Kafka brokers' own log lines to a file instead of the terminal, for {@code weft
 * demo}: on a busy machine the controllers warn ("Exceptionally slow controller event" and the like),
 * and a newcomer should not read Kafka's internals as Weft failing. Weft's own lines stay on stderr.
 * The loggers are Kafka's ({@code kafka.*}, {@code org.apache.kafka.*}, {@code state.change.logger}),
 * which also covers the Kafka clients inside Weft (discovery, admin calls).
 */
final class KafkaLogFile implements AutoCloseable {

    static final List<String> KAFKA_LOGGERS = List.of("kafka", "org.apache.kafka", "state.change.logger");

    private final Path path;
    private final FileAppender<ILoggingEvent> appender;
    private final List<Logger> loggers;

    private KafkaLogFile(Path path, FileAppender<ILoggingEvent> appender, List<Logger> loggers) {
        this.path = path;
        this.appender = appender;
        this.loggers = loggers;
    }

    /** Diverts Kafka's loggers to a new file in the temporary directory; {@link #close()} puts them back. */
    static KafkaLogFile divert() {
        Path path;
        try {
            path = Files.createTempFile("weft-demo-kafka-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the demo's Kafka log file", e);
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n");
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("weft-demo-kafka-log");
        appender.setFile(path.toString());
        appender.setEncoder(encoder);
        appender.start();
        List<Logger> loggers = KAFKA_LOGGERS.stream().map(context::getLogger).toList();
        for (Logger logger : loggers) {
            logger.addAppender(appender);
            logger.setAdditive(false);      // not to the console as well
        }
        return new KafkaLogFile(path, appender, loggers);
    }

    Path path() {
        return path;
    }

    /** Puts Kafka's loggers back on the console and closes the file (which stays, to be read). */
    @Override
    public void close() {
        for (Logger logger : loggers) {
            logger.setAdditive(true);
            logger.detachAppender(appender);
        }
        appender.stop();
    }
}
