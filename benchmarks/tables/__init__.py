"""The generated results tables of the README and the docs, drawn from the records
named by each study's manifest: ``python -m benchmarks tables [--check]``."""
