"""``borrowed(array)``: a view of ``array`` inside numba kernels that carries no
reference count; ``borrowed_members(record)``: a tuple or named tuple (a kernel
record) with each array member so borrowed and the rest as they are.

numba counts references to every array it passes or unpacks, with an atomic
add and subtract on the array's memory record each time. A recursive search that
passes its tables down to every node pays those atomics at every call. A borrowed
view has the same data, shape, strides and numba type, but no memory record, so
the counting skips it. The caller must keep ``array`` alive for as long as the view
is used: the search borrows the tables its caller holds, for the length of one
search. ``borrowed_members`` takes every member a record has, so a field added to
a record is borrowed too. With the JIT disabled (``NUMBA_DISABLE_JIT=1``) both return
their argument.
"""

from __future__ import annotations

import numba as nb

if nb.config.DISABLE_JIT:

    def borrowed(array):
        """``array`` itself without the JIT."""
        return array

    def borrowed_members(record):
        """``record`` itself without the JIT."""
        return record

else:
    from numba.core import cgutils, types
    from numba.core.extending import intrinsic

    def _view(context, builder, aryty, value):
        """The array struct of ``value`` without its memory record."""
        src = context.make_array(aryty)(context, builder, value)
        out = context.make_array(aryty)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    @intrinsic
    def borrowed(typingctx, array):
        """A view of ``array`` without its memory record (no reference count)."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            return _view(context, builder, signature.args[0], args[0])

        return array(array), codegen

    @intrinsic
    def borrowed_members(typingctx, record):
        """``record`` with each array member borrowed, the others as they are."""
        if not isinstance(record, types.BaseTuple):
            return None

        def codegen(context, builder, signature, args):
            recty = signature.args[0]
            members = cgutils.unpack_tuple(builder, args[0], len(recty.types))
            out = []
            for ty, value in zip(recty.types, members, strict=True):
                if isinstance(ty, types.Array):
                    out.append(_view(context, builder, ty, value))
                else:  # the new record holds its own reference
                    context.nrt.incref(builder, ty, value)
                    out.append(value)
            return context.make_tuple(builder, recty, out)

        return record(record), codegen
