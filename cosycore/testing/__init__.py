"""Helpers for tests and benchmarks: release-size configs and tiny model folders."""
