"""Probe datasets: built-in registry, user CSV/JSONL files, download and cache."""
