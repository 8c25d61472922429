package dev.weft.iocore.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Captures what one logger logs while open (needs logback-classic on the test class path).
 *
 * <pre>{@code try (LogCapture log = LogCapture.of(TransportSelector.class)) { ...; log.messages(Level.WARN) } }</pre>
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final Level levelBefore;
    private final boolean setLevel;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Logger logger, Level level) {
        this.logger = logger;
        this.levelBefore = logger.getLevel();
        this.setLevel = level != null;
        if (setLevel) {
            logger.setLevel(level);
        }
        appender.start();
        logger.addAppender(appender);
    }

    /** Starts capturing the logger named after {@code type}. */
    public static LogCapture of(Class<?> type) {
        return new LogCapture((Logger) LoggerFactory.getLogger(type), null);
    }

    /** Starts capturing the logger named after {@code type} at {@code level} (DEBUG lines too); close restores its level. */
    public static LogCapture of(Class<?> type, Level level) {
        return new LogCapture((Logger) LoggerFactory.getLogger(type), level);
    }

    /** Every event so far (a copy). */
    public List<ILoggingEvent> events() {
        synchronized (appender.list) {
            return List.copyOf(appender.list);
        }
    }

    /** Formatted messages logged at exactly {@code level}. */
    public List<String> messages(Level level) {
        return events().stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** How many messages logged at exactly {@code level} contain {@code text}. */
    public long count(Level level, String text) {
        return messages(level).stream().filter(m -> m.contains(text)).count();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
        if (setLevel) {
            logger.setLevel(levelBefore);
        }
    }
}
