"""Speed benchmarks: ``python -m benchmarks [NAME ...]`` runs every ``bench_*`` module
(or those named) and prints each rate beside a same-run baseline."""
