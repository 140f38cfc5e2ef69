"""What the audit ran on: Python, platform, device and the versions of key packages."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from audit.results import Environment

KEY_PACKAGES = (
    "bias-audit",
    "torch",
    "transformers",
    "tokenizers",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "pydantic",
    "gguf",
    "accelerate",
    "jinja2",
    "weasyprint",
    "altair",
)


def package_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str]:
    versions: dict[str, str] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def describe_environment(device: str) -> Environment:
    return Environment(
        python=sys.version.split()[0],
        platform=platform.platform(),
        device=device,
        packages=package_versions(),
    )
