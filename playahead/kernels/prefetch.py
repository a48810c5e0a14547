"""``prefetch(array, i)``: a cache hint for ``array[i]`` inside numba kernels.

It compiles to LLVM's ``llvm.prefetch`` (read, locality 1, data cache: ``prefetcht2`` on
x86, which fills the outer caches rather than L1; chosen over the
other localities and over no prefetch by timing ``python -m benchmarks ntuple`` with
each). It changes no value, it only starts the memory load early. The n-tuple kernels
issue it for all ``8 * P`` weight lookups of an afterstate before they sum them, so the
loads of a 268 MB weight table overlap instead of waiting one after the other. With the
JIT disabled (``NUMBA_DISABLE_JIT=1``) it is a plain no-op function.
"""

from __future__ import annotations

import numba as nb

if nb.config.DISABLE_JIT:

    def prefetch(array, i):
        """No-op without the JIT."""

else:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.core.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, array, i):
        """Prefetch ``array[i]`` (``array`` 1-D, ``i`` an integer)."""
        if not isinstance(array, types.Array) or array.ndim != 1:
            return None
        if not isinstance(i, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(
                context, builder, aryty, ary, [args[1]], wraparound=False
            )
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
            fn = cgutils.get_or_insert_function(
                builder.module, fnty, "llvm.prefetch.p0"
            )
            builder.call(fn, [ptr, i32(0), i32(1), i32(1)])
            return context.get_dummy_value()

        return types.void(array, i), codegen
