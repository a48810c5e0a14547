"""playahead's benchmarks: ``python -m benchmarks`` (``make bench``) runs them."""
