"""The benchmarks' interleaved timing: calls alternate between the sides of a ratio
and each side reports its median."""

from benchmarks.common import interleaved


def test_interleaved_alternates_and_takes_medians():
    calls = []

    def rate(name, values):
        it = iter(values)

        def call():
            calls.append(name)
            return next(it)

        return call

    ours, theirs, missing = interleaved(
        [rate("ours", [5, 1, 3]), rate("theirs", [2, 9, 4]), rate("none", [None] * 3)]
    )
    assert calls == ["ours", "theirs", "none"] * 3
    assert (ours, theirs, missing) == (3, 4, None)
