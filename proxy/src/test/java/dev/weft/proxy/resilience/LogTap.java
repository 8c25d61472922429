package dev.weft.proxy.resilience;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * Records what a logger and its descendants log (as compact lines, so 100,000 of them stay cheap),
 * optionally keeping them off the console while open ({@link #quiet}) so a fuzz run that provokes
 * thousands of expected warnings does not flood the test output.
 */
final class LogTap implements AutoCloseable {

    /** One log event: level, logger name, formatted message (plus the throwable's class and message). */
    record Line(Level level, String logger, String message) {
        @Override
        public String toString() {
            return level + " " + logger + " - " + message;
        }
    }

    private final Logger logger;
    private final boolean previousAdditivity;
    private final Level previousLevel;
    private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            String message = e.getFormattedMessage();
            IThrowableProxy t = e.getThrowableProxy();
            if (t != null) {
                message = message + " | " + t.getClassName() + ": " + t.getMessage();
            }
            lines.add(new Line(e.getLevel(), e.getLoggerName(), message));
        }
    };

    private LogTap(String loggerName, boolean quiet, Level level) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        previousAdditivity = logger.isAdditive();
        previousLevel = logger.getLevel();
        if (level != null) {
            logger.setLevel(level);
        }
        appender.setContext(logger.getLoggerContext());
        appender.setName("resilience-tap-" + loggerName);
        appender.start();
        logger.addAppender(appender);
        if (quiet) {
            logger.setAdditive(false);
        }
    }

    /** Records {@code loggerName} and below; they still reach the console. */
    static LogTap of(String loggerName) {
        return new LogTap(loggerName, false, null);
    }

    static LogTap of(Class<?> type) {
        return of(type.getName());
    }

    /** Records {@code loggerName} and below and keeps them off the console until closed. */
    static LogTap quiet(String loggerName) {
        return new LogTap(loggerName, true, null);
    }

    /** Records {@code loggerName} and below from {@code level} up, off the console, until closed. */
    static LogTap quiet(String loggerName, Level level) {
        return new LogTap(loggerName, true, level);
    }

    /** Forgets what was recorded so far. */
    void clear() {
        lines.clear();
    }

    List<Line> lines() {
        return new ArrayList<>(lines);
    }

    List<Line> lines(Level level) {
        return lines(l -> l.level() == level);
    }

    List<Line> lines(Predicate<Line> filter) {
        List<Line> out = new ArrayList<>();
        for (Line l : lines) {
            if (filter.test(l)) {
                out.add(l);
            }
        }
        return out;
    }

    long count(Predicate<Line> filter) {
        return lines.stream().filter(filter).count();
    }

    @Override
    public void close() {
        logger.setLevel(previousLevel);
        logger.setAdditive(previousAdditivity);
        logger.detachAppender(appender);
        appender.stop();
    }
}
