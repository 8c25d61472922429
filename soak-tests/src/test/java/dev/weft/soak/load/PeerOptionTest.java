package dev.weft.soak.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code --peer name=host:port,pid=PID}: parsing, the one-line errors, and where peers go in the target list. */
class PeerOptionTest {

    static final long SELF = ProcessHandle.current().pid();

    @Test
    void peersAreAppendedUnlessNamedInTargets() {
        LoadTool.Options o = LoadTool.Options.parse(new String[] {"--targets", "direct,weft",
            "--peer", "kroxy=127.0.0.1:9192,pid=" + SELF, "--peer", "envoy=localhost:10000,pid=" + SELF});
        assertEquals(List.of("direct", "weft", "kroxy", "envoy"), o.targets());
        assertEquals(new LoadTool.Peer("kroxy", "127.0.0.1:9192", SELF), o.peers().getFirst());
        LoadTool.Options ordered = LoadTool.Options.parse(new String[] {"--targets", "envoy,direct",
            "--peer=envoy=localhost:10000,pid=" + SELF});
        assertEquals(List.of("envoy", "direct"), ordered.targets());
    }

    @Test
    void malformedSpecsAndMissingProcessesAreOneLineErrors() {
        for (String bad : List.of("kroxy=127.0.0.1:9192", "kroxy=127.0.0.1,pid=1", "=h:1,pid=1", "kroxy=h:port,pid=1",
                "kroxy=h:1,pid=x", "kroxy=h:1,pid=1,extra", "kroxy=h:70000,pid=1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LoadTool.Peer.parse(bad), bad);
            assertEquals("--peer '" + bad + "': expected name=host:port,pid=PID", e.getMessage());
        }
        IllegalArgumentException gone = assertThrows(IllegalArgumentException.class,
                () -> LoadTool.Peer.parse("kroxy=127.0.0.1:9192,pid=" + Integer.MAX_VALUE));
        assertEquals("--peer 'kroxy=127.0.0.1:9192,pid=" + Integer.MAX_VALUE + "': no process with pid " + Integer.MAX_VALUE, gone.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LoadTool.Peer.parse("weft=127.0.0.1:9192,pid=" + SELF));
        assertThrows(IllegalArgumentException.class, () -> LoadTool.Options.parse(new String[] {
            "--peer", "a=h:1,pid=" + SELF, "--peer", "a=h:2,pid=" + SELF}));
    }
}
