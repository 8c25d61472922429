package dev.weft.perfreports;

import java.util.ArrayList;
import java.util.List;

/**
 * A titled table of preformatted cells. The first {@code leftColumns} columns are left-aligned
 * (labels), the rest right-aligned (numbers). Rows may be marked as regressed.
 */
public final class Table {
  private final String title;
  private final List<String> headers;
  private final int leftColumns;
  private final List<List<String>> rows = new ArrayList<>();
  private final List<Boolean> regressed = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  public Table(String title, List<String> headers, int leftColumns) {
    this.title = title;
    this.headers = List.copyOf(headers);
    this.leftColumns = leftColumns;
  }

  public void addRow(List<String> cells, boolean isRegressed) {
    if (cells.size() != headers.size()) {
      throw new IllegalArgumentException("row has " + cells.size() + " cells, table " + headers.size());
    }
    rows.add(List.copyOf(cells));
    regressed.add(isRegressed);
  }

  public void addNote(String note) {
    notes.add(note);
  }

  public String title() { return title; }
  public List<String> headers() { return headers; }
  public List<List<String>> rows() { return List.copyOf(rows); }
  public List<String> notes() { return List.copyOf(notes); }
  public boolean regressed(int row) { return regressed.get(row); }

  /** The cell in the first row whose first {@code keys.length} cells equal keys, column by header name. */
  public String cell(String header, String... keys) {
    int col = headers.indexOf(header);
    if (col < 0) throw new IllegalArgumentException("no column " + header + " in " + headers);
    for (List<String> row : rows) {
      boolean match = true;
      for (int i = 0; i < keys.length && match; i++) match = row.get(i).equals(keys[i]);
      if (match) return row.get(col);
    }
    throw new IllegalArgumentException("no row " + String.join("/", keys) + " in " + title);
  }

  public String renderText() {
    int[] w = new int[headers.size()];
    for (int c = 0; c < w.length; c++) {
      w[c] = headers.get(c).length();
      for (List<String> r : rows) w[c] = Math.max(w[c], r.get(c).length());
    }
    StringBuilder sb = new StringBuilder();
    sb.append("== ").append(title).append(" ==\n");
    appendLine(sb, headers, w);
    int total = 0;
    for (int x : w) total += x + 2;
    sb.append("-".repeat(Math.max(0, total - 2))).append('\n');
    for (List<String> r : rows) appendLine(sb, r, w);
    for (String n : notes) sb.append("  ").append(n).append('\n');
    return sb.toString();
  }

  private void appendLine(StringBuilder sb, List<String> cells, int[] w) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String s = cells.get(c);
      String pad = " ".repeat(w[c] - s.length());
      if (c < leftColumns) line.append(s).append(pad); else line.append(pad).append(s);
      if (c < cells.size() - 1) line.append("  ");
    }
    sb.append(line.toString().stripTrailing()).append('\n');
  }

  public String renderHtml() {
    StringBuilder sb = new StringBuilder();
    sb.append("<h3>").append(Html.esc(title)).append("</h3>\n<table>\n<thead><tr>");
    for (int c = 0; c < headers.size(); c++) {
      sb.append("<th").append(c < leftColumns ? " class=l" : "").append('>').append(Html.esc(headers.get(c))).append("</th>");
    }
    sb.append("</tr></thead>\n<tbody>\n");
    for (int i = 0; i < rows.size(); i++) {
      sb.append(regressed.get(i) ? "<tr class=bad>" : "<tr>");
      List<String> r = rows.get(i);
      for (int c = 0; c < r.size(); c++) {
        sb.append("<td").append(c < leftColumns ? " class=l" : "").append('>').append(Html.esc(r.get(c))).append("</td>");
      }
      sb.append("</tr>\n");
    }
    sb.append("</tbody></table>\n");
    for (String n : notes) sb.append("<p class=note>").append(Html.esc(n)).append("</p>\n");
    return sb.toString();
  }
}
