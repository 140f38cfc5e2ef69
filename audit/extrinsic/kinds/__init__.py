"""The built-in head kinds (`audit.extrinsic.head_kinds`): `regression` (STS-B) and
`classification` (NLI, BiasBios), one module each, registered at the end of
`head_kinds.py` as an outside package registers its own kind (docs/plugins.md)."""
