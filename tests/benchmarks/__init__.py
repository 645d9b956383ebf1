"""Benchmarks (bench_*.py scripts that print figures) and their quick smoke runs."""
