package dev.weft.perfreports;

import dev.weft.perfreports.jmh.JmhResult;
import dev.weft.perfreports.model.Fault;
import dev.weft.perfreports.model.Result;
import dev.weft.perfreports.model.TimelinePoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Charts with XChart, rendered to PNG for embedding. Needs no display (java.awt.headless=true). */
public final class Charts {
  private Charts() {}

  static final int W = 1000;
  static final int H = 520;

  public static byte[] png(Chart<?, ?> chart) {
    try {
      return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** (1) Latency by percentile for every run × target of a scenario that carries a histogram; null if none. */
  public static Html.Image latencyPercentiles(String scenario, List<LoadCompare.Run> runs) {
    XYChart c = new XYChartBuilder().width(W).height(H).title("Latency by percentile — " + scenario)
        .xAxisTitle("percentile as 1/(1-p), log scale: 10 = p90, 100 = p99, 1000 = p99.9, 10000 = p99.99")
        .yAxisTitle("latency (µs)").build();
    style(c.getStyler());
    // No tick-label formatting function here: XChart 3.8.8 then steps a log axis linearly (endless ticks).
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setXAxisLogarithmicDecadeOnly(true);
    c.getStyler().setDefaultSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Line);
    int n = 0;
    for (LoadCompare.Run run : runs) {
      for (Result r : run.report().results(scenario)) {
        Histogram h = r.decodeHistogram();
        if (h == null || h.getTotalCount() == 0) continue;
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        double maxX = h.getTotalCount();
        for (HistogramIterationValue v : h.percentiles(5)) {
          double p = v.getPercentileLevelIteratedTo() / 100.0;
          double x = p >= 1.0 ? maxX : Math.min(maxX, 1.0 / (1.0 - p));
          if (!xs.isEmpty() && x <= xs.getLast()) continue;
          xs.add(x);
          ys.add((double) h.highestEquivalentValue(v.getValueIteratedTo()));
        }
        XYSeries s = c.addSeries(run.name() + " " + r.target(), xs, ys);
        s.setMarker(SeriesMarkers.NONE);
        n++;
      }
    }
    return n == 0 ? null : new Html.Image("Latency by percentile — " + scenario, png(c));
  }

  /** (2) Records/s over time per run × target, with a vertical line and label at each fault; null if no timeline. */
  public static Html.Image throughputTimeline(List<LoadCompare.Run> runs) {
    XYChart c = new XYChartBuilder().width(W).height(H).title("Throughput over time (faults marked)")
        .xAxisTitle("time since start (s)").yAxisTitle("records/s").build();
    style(c.getStyler());
    c.getStyler().setDefaultSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Line);
    double maxY = 0;
    int n = 0;
    for (LoadCompare.Run run : runs) {
      Map<String, List<TimelinePoint>> byTarget = new LinkedHashMap<>();
      for (TimelinePoint p : run.report().timeline()) {
        if (p.recordsPerSec() == null) continue;
        byTarget.computeIfAbsent(String.valueOf(p.target()), k -> new ArrayList<>()).add(p);
      }
      for (Map.Entry<String, List<TimelinePoint>> e : byTarget.entrySet()) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        double gap = gapThreshold(e.getValue());
        for (TimelinePoint p : e.getValue()) {
          if (!xs.isEmpty() && p.t() - xs.getLast() > gap) {
            // the target was not running in between (targets measured in turns): break the line
            xs.add((xs.getLast() + p.t()) / 2);
            ys.add(Double.NaN);
          }
          xs.add(p.t());
          ys.add(p.recordsPerSec());
          maxY = Math.max(maxY, p.recordsPerSec());
        }
        c.addSeries(run.name() + " " + e.getKey(), xs, ys).setMarker(SeriesMarkers.NONE);
        n++;
      }
    }
    if (n == 0) return null;
    int i = 0;
    for (LoadCompare.Run run : runs) {
      for (Fault f : run.report().faults()) {
        c.addAnnotation(new AnnotationLine(f.t(), true, false));
        String label = run.name() + ": " + f.kind() + (f.detail() == null ? "" : " (" + f.detail() + ")");
        c.addAnnotation(new AnnotationText(label, f.t(), maxY * (0.97 - 0.06 * (i % 5)), false));
        i++;
      }
    }
    return new Html.Image("Throughput over time (faults marked)", png(c));
  }

  /** Three times the median sampling interval: a longer step is a gap in the measurement. */
  static double gapThreshold(List<TimelinePoint> points) {
    List<Double> steps = new ArrayList<>();
    for (int i = 1; i < points.size(); i++) steps.add(points.get(i).t() - points.get(i - 1).t());
    if (steps.isEmpty()) return Double.MAX_VALUE;
    steps.sort(null);
    double median = steps.get(steps.size() / 2);
    return median <= 0 ? Double.MAX_VALUE : 3 * median;
  }

  /** (3) Records/s per target (categories) per run (series) for one scenario; null when no rates. */
  public static Html.Image throughputBars(String scenario, List<LoadCompare.Run> runs) {
    Set<String> targets = new LinkedHashSet<>();
    for (LoadCompare.Run run : runs) for (Result r : run.report().results(scenario)) targets.add(String.valueOf(r.target()));
    CategoryChart c = new CategoryChartBuilder().width(W).height(H).title("Records/s — " + scenario)
        .xAxisTitle("target").yAxisTitle("records/s").build();
    style(c.getStyler());
    int n = 0;
    for (LoadCompare.Run run : runs) {
      List<String> xs = new ArrayList<>(targets);
      List<Double> ys = new ArrayList<>();
      boolean any = false;
      for (String t : targets) {
        Result r = run.report().result(scenario, t);
        Double v = r == null ? null : r.recordsPerSec();
        ys.add(v == null ? 0.0 : v);
        any |= v != null;
      }
      if (!any) continue;
      c.addSeries(run.name() + " " + run.label(), xs, ys);
      n++;
    }
    return n == 0 ? null : new Html.Image("Records/s — " + scenario, png(c));
  }

  /** JMH: score per params (categories) per run (series), log scale, one chart per class × method. */
  public static List<Html.Image> jmhScores(List<JmhCompare.Run> runs) {
    Map<String, Set<String>> groups = new LinkedHashMap<>();
    Map<String, String> units = new LinkedHashMap<>();
    for (JmhCompare.Run run : runs) {
      for (JmhResult r : run.results()) {
        String g = r.className() + "." + r.method();
        groups.computeIfAbsent(g, k -> new LinkedHashSet<>()).add(r.paramsText().isEmpty() ? "(no params)" : r.paramsText());
        units.putIfAbsent(g, r.scoreUnit() + (r.higherIsBetter() ? ", higher is better" : ", lower is better"));
      }
    }
    List<Html.Image> out = new ArrayList<>();
    for (Map.Entry<String, Set<String>> g : groups.entrySet()) {
      // a category bar chart needs every series on the same categories: keep the params every run measured
      List<JmhCompare.Run> having = new ArrayList<>();
      List<String> common = new ArrayList<>(g.getValue());
      for (JmhCompare.Run run : runs) {
        Map<String, Double> scores = jmhScores(run, g.getKey());
        if (scores.isEmpty()) continue;
        having.add(run);
        common.retainAll(scores.keySet());
      }
      if (common.isEmpty()) continue;
      int omitted = g.getValue().size() - common.size();
      CategoryChart c = new CategoryChartBuilder().width(W).height(H)
          .title(g.getKey() + (omitted > 0 ? " (" + omitted + " params not in every run omitted)" : ""))
          .xAxisTitle("params").yAxisTitle("score (" + units.get(g.getKey()) + ", log scale)").build();
      style(c.getStyler());
      c.getStyler().setYAxisLogarithmic(true);
      c.getStyler().setYAxisDecimalPattern("#,##0.#");
      c.getStyler().setXAxisLabelRotation(common.size() > 6 ? 30 : 0);
      double min = Double.MAX_VALUE;
      double max = 0;
      for (JmhCompare.Run run : having) {
        for (String params : common) {
          double v = jmhScores(run, g.getKey()).get(params);
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
      // bars start at the axis minimum; on a log axis that must be a positive decade below the data
      c.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
      c.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max))));
      for (JmhCompare.Run run : having) {
        Map<String, Double> scores = jmhScores(run, g.getKey());
        List<Double> ys = new ArrayList<>();
        for (String params : common) ys.add(scores.get(params));
        c.addSeries(run.name() + " " + run.label(), common, ys);
      }
      out.add(new Html.Image(g.getKey(), png(c)));
    }
    return out;
  }

  private static Map<String, Double> jmhScores(JmhCompare.Run run, String classDotMethod) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (JmhResult r : run.results()) {
      if ((r.className() + "." + r.method()).equals(classDotMethod) && r.score() > 0) {
        m.put(r.paramsText().isEmpty() ? "(no params)" : r.paramsText(), r.score());
      }
    }
    return m;
  }

  private static void style(org.knowm.xchart.style.AxesChartStyler s) {
    s.setYAxisDecimalPattern("#,##0.###");
    s.setLegendPosition(Styler.LegendPosition.OutsideS);
    s.setLegendLayout(Styler.LegendLayout.Horizontal);
    s.setChartBackgroundColor(java.awt.Color.WHITE);
    s.setPlotBackgroundColor(java.awt.Color.WHITE);
    s.setAntiAlias(true);
    s.setPlotGridLinesVisible(true);
  }
}
