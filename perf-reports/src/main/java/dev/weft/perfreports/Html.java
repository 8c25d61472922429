package dev.weft.perfreports;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/** Writes one self-contained HTML file: inline CSS, tables, charts as data: URI PNGs. No external URLs. */
public final class Html {
  private Html() {}

  /** A rendered chart: PNG bytes. */
  public record Image(String title, byte[] png) {}

  public static String esc(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '&' -> sb.append("&amp;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(ch);
      }
    }
    return sb.toString();
  }

  public static String render(String title, List<String> preamble, List<Table> tables, List<String> regressions,
      List<Image> images) {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>").append(esc(title))
        .append("</title>\n<style>\n")
        .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222}")
        .append("table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}")
        .append("th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;font-variant-numeric:tabular-nums}")
        .append("th{background:#f0f0f0}.l{text-align:left}tr.bad td{background:#fde2e2}")
        .append(".note{color:#555;font-size:12px}.ok{color:#176f2c}.fail{color:#b00020}")
        .append("img{max-width:100%;border:1px solid #ddd;margin:6px 0 18px}pre{background:#f7f7f7;padding:8px}")
        .append("\n</style></head><body>\n<h1>").append(esc(title)).append("</h1>\n");
    for (String p : preamble) sb.append("<p>").append(esc(p)).append("</p>\n");
    if (regressions.isEmpty()) {
      sb.append("<p class=ok>No regressions beyond the thresholds.</p>\n");
    } else {
      sb.append("<h2 class=fail>✗ ").append(regressions.size()).append(" regression(s)</h2>\n<ul>\n");
      for (String r : regressions) sb.append("<li>").append(esc(r)).append("</li>\n");
      sb.append("</ul>\n");
    }
    if (!images.isEmpty()) {
      sb.append("<h2>Charts</h2>\n");
      for (Image im : images) {
        sb.append("<h3>").append(esc(im.title())).append("</h3>\n<img alt=\"").append(esc(im.title()))
            .append("\" src=\"data:image/png;base64,").append(Base64.getEncoder().encodeToString(im.png()))
            .append("\">\n");
      }
    }
    sb.append("<h2>Tables</h2>\n");
    for (Table t : tables) sb.append(t.renderHtml());
    sb.append("</body></html>\n");
    return sb.toString();
  }

  public static void write(Path file, String html) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    Files.writeString(file, html);
  }
}
