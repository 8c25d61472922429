package dev.weft.iocore.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class CpuListTest {

    @Test
    void parsesAndFormatsTheKernelFormat() {
        BitSet cpus = CpuList.parse("0-3, 8,10-11");
        assertEquals(BitSet.valueOf(new long[] {0b1101_0000_1111L}), cpus);
        assertEquals("0-3,8,10-11", CpuList.format(cpus));
        assertEquals("5", CpuList.format(CpuList.parse("5")));
        assertEquals("64-65,1023", CpuList.format(CpuList.parse("64,65,1023")));
        assertEquals("", CpuList.format(CpuList.parse("")));
    }

    @Test
    void rejectsGarbageNamingTheItem() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> CpuList.parse("0-3,x"));
        assertTrue(error.getMessage().startsWith("'x' in cpu list '0-3,x'"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("5-2"));
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("1-"));
    }

    @Test
    void pinningConfigurationValues() {
        assertInstanceOf(CpuPinning.Off.class, CpuPinning.parse("off"));
        assertInstanceOf(CpuPinning.AllowedCpus.class, CpuPinning.parse("ON"));
        assertEquals(new CpuPinning.Cpus(new int[] {2, 3, 4, 8}), CpuPinning.parse("2-4,8"));
        assertEquals("Cpus[2-4,8]", CpuPinning.parse("2-4,8").toString());
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> CpuPinning.parse("most"));
        assertTrue(error.getMessage().startsWith("cpuPinning: 'most' is not 'off', 'on' or a cpu list"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CpuPinning.Cpus(new int[0]));
        assertThrows(IllegalArgumentException.class, () -> new CpuPinning.Cpus(new int[] {-1}));
    }
}
