/**
 * Buffer allocation policy, and the ownership convention every Weft module follows for {@code ByteBuf}.
 *
 * <h2>Ownership convention</h2>
 * A {@code ByteBuf} is reference counted: whoever drops the last reference releases it. Every method
 * that takes or returns a {@code ByteBuf} says in its javadoc which of these it does:
 * <ul>
 *   <li><b>borrows</b>: the method reads (or writes) the buffer only for the duration of the call; it
 *       does not release it and keeps no reference after returning. The caller still owns it.
 *   <li><b>takes ownership</b>: the method becomes responsible for exactly one reference and releases
 *       it (or hands it on, e.g. to {@code ctx.write}) on every path, exceptions included. The caller
 *       must not touch the buffer afterwards unless it retained it first.
 *   <li><b>returns retained</b>: the returned buffer carries one reference that now belongs to the
 *       caller, who must release it or hand it on.
 * </ul>
 * Slices and duplicates share their parent's count: {@code retainedSlice()} before passing a slice on,
 * and note next to each {@code retain()} who owns the extra reference. In Netty pipelines,
 * {@code channelRead} takes ownership of its message and {@code write} takes ownership of its argument.
 *
 * <p>Tests run Netty's leak detector at PARANOID and fail on any leak report ({@code LeakFailExtension}
 * in the io-core test-jar).
 */
package dev.weft.iocore.buffer;
