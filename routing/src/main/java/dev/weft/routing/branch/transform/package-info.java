/**
 * The transform chain of a branch route: what happens to the records the primary acknowledged before
 * the branch writer produces them to the branch cluster.
 *
 * <pre>{@code
 * transforms:
 *   - redact:
 *       value-fields: ["$.customer.email", "$.items[*].card"]  # JSON paths: $ .name ['name'] [*] [N]
 *       with: hash        # hash | mask | remove, for value-fields; default hash
 *       key: hash         # optional, hash | mask | remove
 *       headers: {authorization: remove, x-user-id: hash}     # optional, names case-sensitive
 *       salt: "s3cr3t"    # required when anything hashes
 *       non-json: pass    # pass | drop a value that is not a JSON object or array; default pass
 *   - sample: {fraction: 0.1, by: key}   # 0 < fraction <= 1; by key (default) | random
 *   - derive: audit                      # or derive: {count: {interval: 10s}} (ms, s, m)
 * }</pre>
 *
 * <p>Steps run in config order. Redact and sample look at one record at a time. A derive step (at most
 * one per chain) replaces the stream from there on with records of its own: an audit record per batch,
 * or per-window counts per topic and client id; steps after it work on those derived records.
 * {@link dev.weft.routing.branch.transform.TransformChain#parse} reports every config error as a
 * {@link dev.weft.routing.dag.RoutingProblem} with its exact path.
 *
 * <p>Guarantees: no I/O, no threads, no clock of its own (time comes in with each batch and each
 * tick). A chain is single-threaded: the branch writer thread that owns it is the only caller. Hashes
 * and key samples are the same on every run and replica. {@code apply} never throws for a bad record:
 * a step that throws costs that record, counted as a transform error, and the chain goes on.
 */
package dev.weft.routing.branch.transform;
