"""Run every ``benchmarks/bench_*.py`` module's ``main()`` and print its report."""

import importlib
import pkgutil
import sys
from pathlib import Path

import benchmarks


def run(names: list[str]) -> None:
    found = sorted(
        m.name
        for m in pkgutil.iter_modules([Path(benchmarks.__file__).parent])
        if m.name.startswith("bench_")
    )
    for name in found:
        if names and name.removeprefix("bench_") not in names and name not in names:
            continue
        report = importlib.import_module(f"benchmarks.{name}").main()
        if report is not None:
            report.print()


if __name__ == "__main__":
    if sys.argv[1:2] == ["strength"]:  # its own options; see benchmarks/strength.py
        from benchmarks import strength

        strength.main(sys.argv[2:])
    elif sys.argv[1:2] == ["comparison"]:  # see benchmarks/comparison.py
        from benchmarks import comparison

        comparison.main(sys.argv[2:])
    elif sys.argv[1:2] == ["cutoffs"]:  # see benchmarks/cutoffs.py
        from benchmarks import cutoffs

        cutoffs.main(sys.argv[2:])
    elif sys.argv[1:2] == ["tables"]:  # see benchmarks/tables.py
        from benchmarks import tables

        tables.main(sys.argv[2:])
    elif sys.argv[1:2] == ["tune-threes"]:  # see benchmarks/tune_threes.py
        from benchmarks import tune_threes

        tune_threes.main(sys.argv[2:])
    else:
        run(sys.argv[1:])
