"""Record makers: each plays seeded games (or decisions) and writes a record under
``benchmarks/results/``; ``python -m benchmarks strength|comparison|cutoffs|
tune-threes ...``."""
