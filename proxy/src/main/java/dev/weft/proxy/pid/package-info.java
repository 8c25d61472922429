/**
 * Producer-id translation fleet state (DESIGN §5, "Idempotent producers" and "Fleet state"): which
 * producer id each upstream cluster allocated for a virtual producer id, agreed by every proxy replica
 * through a compacted one-partition state topic on the home cluster, where the first claim of a key in
 * the log wins. {@link dev.weft.proxy.pid.ProducerIdClaims} is the entry point; the record format
 * (readable with {@code kcat -C -t __weft_producer_ids -f '%o %k %s %h\n'}) is described in
 * {@code ClaimFormat}.
 */
package dev.weft.proxy.pid;
