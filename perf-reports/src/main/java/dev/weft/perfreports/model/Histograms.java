package dev.weft.perfreports.model;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * The {@code histogram} field of a result: base64 of HdrHistogram's
 * {@code encodeIntoCompressedByteBuffer}, values in microseconds.
 */
public final class Histograms {
  private Histograms() {}

  public static String encode(AbstractHistogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    byte[] bytes = new byte[n];
    buf.flip();
    buf.get(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Decodes a base64 compressed histogram; IllegalArgumentException when it is not one. */
  public static Histogram decode(String base64) {
    try {
      byte[] bytes = Base64.getDecoder().decode(base64);
      return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
    } catch (DataFormatException | RuntimeException e) {
      throw new IllegalArgumentException("not a base64 compressed HdrHistogram: " + e.getMessage(), e);
    }
  }
}
