"""The Python a warm default Threes hint runs: distinct playahead functions, their
modules and calls (cProfile), and its Python time outside the search kernel.

One hint (``hint("threes", BOARD, next_card=2)``, the default agent) warms up the
process (imports, compiled kernels, the packaged net); the next is profiled, counting
the functions whose file is in the ``playahead`` package; then ``--repeats`` more are
timed, each hint's wall time less the time inside the root search kernel
(``playahead.kernels.expectimax.root_threes``). ``PYTHONPATH`` picks the checkout
measured (the script uses only what older checkouts have too), so two checkouts run in
turn give an A/B pair on one machine.

Run: ``python -m benchmarks.speed.count_hint_functions [--repeats 50] [--list]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time

BOARD = "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=50, help="hints timed")
    parser.add_argument("--list", action="store_true", help="list the functions")
    args = parser.parse_args(argv)

    import playahead
    from playahead.kernels import expectimax as kernels
    from playahead.tools.hint import hint

    package = os.path.dirname(playahead.__file__)
    hint("threes", BOARD, next_card=2)  # warm-up
    profile = cProfile.Profile()
    profile.enable()
    hint("threes", BOARD, next_card=2)
    profile.disable()
    stats = pstats.Stats(profile).stats
    ours = {k: v for k, v in stats.items() if k[0].startswith(package)}
    calls = sum(v[1] for v in ours.values())
    modules = {k[0] for k in ours}
    print(f"{len(ours)} distinct functions in {len(modules)} modules, {calls} calls")
    if args.list:
        for (path, line, name), v in sorted(ours.items()):
            print(f"  {v[1]:4d}  {os.path.relpath(path, package)}:{line} {name}")

    inside = [0.0]
    root = kernels.root_threes

    def timed_root(*a):
        start = time.perf_counter()
        try:
            return root(*a)
        finally:
            inside[0] += time.perf_counter() - start

    kernels.root_threes = timed_root
    outside = []
    for _ in range(args.repeats):
        inside[0] = 0.0
        start = time.perf_counter()
        hint("threes", BOARD, next_card=2)
        outside.append(time.perf_counter() - start - inside[0])
    kernels.root_threes = root
    ms = sorted(1000 * x for x in outside)
    print(
        f"Python outside the kernel: median {statistics.median(ms):.3f} ms, "
        f"min {ms[0]:.3f} ms over {args.repeats} hints"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
