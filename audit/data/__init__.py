"""Probe datasets: built-in registry, user CSV/JSONL files, download and cache.

Public entry points: `audit.data.loader.load_dataset` (one spec dataset -> LoadedDataset),
`audit.data.catalog` (DATASETS registry and light accessors, safe to import anywhere),
`audit.data.download.ensure_downloaded` (fetch a built-in's files). See docs/datasets.md.
"""
