package dev.weft.testkit;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How forked nodes are launched.
 *
 * @param javaCommand the {@code java} executable, by default the one running this JVM
 * @param classPath   the child's class path, by default this JVM's {@code java.class.path}
 * @param heap        the child's {@code -Xmx} value, such as {@code 512m}
 * @param jvmArgs     extra JVM options, appended after the defaults
 */
record ForkOptions(String javaCommand, String classPath, String heap, List<String> jvmArgs) {

    ForkOptions {
        jvmArgs = List.copyOf(jvmArgs);
        classPath = absolute(classPath);
    }

    /** Children run in their node directory, so relative class path entries are resolved here. */
    private static String absolute(String classPath) {
        return Arrays.stream(classPath.split(File.pathSeparator))
            .filter(entry -> !entry.isBlank())
            .map(entry -> Path.of(entry).toAbsolutePath().toString())
            .collect(Collectors.joining(File.pathSeparator));
    }

    /** The executable of the JVM running this code, so a child runs on the same JDK. */
    static String currentJavaCommand() {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
