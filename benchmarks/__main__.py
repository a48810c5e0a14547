"""``python -m benchmarks [NAME ...]``: the speed benchmarks (every
``benchmarks/speed/bench_*.py`` module's ``main()``, or those named), each report
printed; ``python -m benchmarks COMMAND ...``: a record maker or the tables generator
(:data:`COMMANDS`), with its own options."""

import importlib
import pkgutil
import sys

from benchmarks import speed

#: subcommand -> the module whose ``main(argv)`` runs it.
COMMANDS = {
    "strength": "benchmarks.records.strength",
    "comparison": "benchmarks.records.comparison",
    "cutoffs": "benchmarks.records.cutoffs",
    "tune-threes": "benchmarks.records.tune_threes",
    "calibration": "benchmarks.records.calibration",
    "keys-per-move": "benchmarks.records.keys_per_move",
    "alphazero-curve": "benchmarks.records.alphazero_curve",
    "tables": "benchmarks.tables.generate",
}


def run(names: list[str]) -> None:
    found = sorted(
        m.name
        for m in pkgutil.iter_modules(speed.__path__)
        if m.name.startswith("bench_")
    )
    for name in found:
        if names and name.removeprefix("bench_") not in names and name not in names:
            continue
        report = importlib.import_module(f"benchmarks.speed.{name}").main()
        if report is not None:
            report.print()


if __name__ == "__main__":
    if sys.argv[1:2] and sys.argv[1] in COMMANDS:
        importlib.import_module(COMMANDS[sys.argv[1]]).main(sys.argv[2:])
    else:
        run(sys.argv[1:])
