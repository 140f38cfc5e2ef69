"""Model loading (hub id, local directory, GGUF, pip-packaged GGUF) and fingerprints.

Importing this package does not import torch or transformers; loading does.
"""

from audit.models.fingerprint import fingerprint
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.models.resolve import resolve_model
from audit.models.resolved import ResolvedModel

__all__ = ["LoadedModel", "ResolvedModel", "fingerprint", "load_model", "resolve_model"]
