"""bias-audit: audit social bias in language models from a declarative spec."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bias-audit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
