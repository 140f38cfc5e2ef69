"""Model loading (hub id, local directory, GGUF, pip-packaged GGUF) and fingerprints."""
