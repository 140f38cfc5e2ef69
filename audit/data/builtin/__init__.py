"""One module per built-in dataset: its options model, files and checksums, reader and
`ENTRY`, registered with one line in `audit/data/catalog.py` (see docs/datasets.md,
"Adding a built-in dataset"). Importing a module here imports no numerical library."""
