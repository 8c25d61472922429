/**
 * Nested routers (DESIGN §1 "Routers compose as a DAG"): a virtual cluster whose router has routes
 * leading to other routers is served as one flat router whose routes are the DAG's leaves (paths down
 * to a cluster). Topic names, ids, placement and homes are resolved level by level, once per catalog
 * snapshot; node ids compose per level ({@link dev.weft.routing.dag.ComposedNodeIds}). Sessions and
 * codecs see a plain {@link dev.weft.routing.Router} over leaves and never know the DAG's shape.
 */
package dev.weft.routing.compose;
