"""``borrowed(array)``: a view of ``array`` inside numba kernels that carries no
reference count.

numba counts references to every array it passes or unpacks, with an atomic
add and subtract on the array's memory record each time. A recursive search that
passes its tables down to every node pays those atomics at every call. A borrowed
view has the same data, shape, strides and numba type, but no memory record, so
the counting skips it. The caller must keep ``array`` alive for as long as the view
is used: the search borrows the tables its caller holds, for the length of one
search. With the JIT disabled (``NUMBA_DISABLE_JIT=1``) it returns ``array``.
"""

from __future__ import annotations

import numba as nb

if nb.config.DISABLE_JIT:

    def borrowed(array):
        """``array`` itself without the JIT."""
        return array

else:
    from numba.core import cgutils, types
    from numba.core.extending import intrinsic

    @intrinsic
    def borrowed(typingctx, array):
        """A view of ``array`` without its memory record (no reference count)."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            src = context.make_array(aryty)(context, builder, args[0])
            out = context.make_array(aryty)(context, builder)
            for name in ("nitems", "itemsize", "data", "shape", "strides"):
                setattr(out, name, getattr(src, name))
            out.meminfo = cgutils.get_null_value(out.meminfo.type)
            out.parent = cgutils.get_null_value(out.parent.type)
            return out._getvalue()

        return array(array), codegen
