"""bias-audit: audit social bias in language models from a declarative spec."""

__version__ = "0.1.0"
