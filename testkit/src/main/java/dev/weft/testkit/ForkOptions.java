package dev.weft.testkit;

import java.nio.file.Path;
import java.util.List;

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
    }

    /** The executable of the JVM running this code, so a child runs on the same JDK. */
    static String currentJavaCommand() {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
