/**
 * The weft-report/v1 model: one JSON file per load or soak run. {@link dev.weft.perfreports.model.Report}
 * is the root; {@link dev.weft.perfreports.model.ReportJson} reads and writes it. Every field except
 * {@code schema}, {@code kind} and {@code results} may be null (absent in JSON); readers show "—".
 * soak-tests depends on this module and writes its reports through these types.
 */
package dev.weft.perfreports.model;
