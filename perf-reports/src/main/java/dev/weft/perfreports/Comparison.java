package dev.weft.perfreports;

import java.util.List;

/** What a comparison produced: the tables (in print order) and every regression found. */
public record Comparison(List<Table> tables, List<Regression> regressions) {
  public Comparison {
    tables = List.copyOf(tables);
    regressions = List.copyOf(regressions);
  }

  public Table table(String titlePrefix) {
    return tables.stream().filter(t -> t.title().startsWith(titlePrefix)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no table " + titlePrefix + " in "
            + tables.stream().map(Table::title).toList()));
  }
}
