"""Probe datasets: built-in registry, user CSV/TSV/JSONL files, download and cache.

Public entry points: `audit.data.loader.load_dataset` (one `DatasetRequest` ->
LoadedDataset), `audit.data.catalog` (the DATASETS registry and light accessors such as
`dataset_shape` and `has_templates`, safe to import anywhere),
`audit.data.download.ensure_downloaded` (fetch a built-in's files). Each built-in is one
module in `audit.data.builtin`. This package never imports `audit.spec`; see
docs/datasets.md.
"""
