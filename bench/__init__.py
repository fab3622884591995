"""Benchmarks: speed lives here, not in timed unit tests. Figures go to bench/README.md."""
