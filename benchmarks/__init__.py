"""playahead's speed benchmarks (``speed/``), record makers (``records/``) and results
tables (``tables/``), over the records of ``results/``: ``python -m benchmarks``."""
