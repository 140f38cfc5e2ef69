"""The retained heap (`audit.scoring.retained_heap`): inside it freed tensors' memory
stays in the process (no page faults on the next batch), the outermost exit hands it
back, nothing changes off the CPU or without glibc, and scores are the same bits."""

from __future__ import annotations

import contextlib
import ctypes
import platform
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import torch

from audit.scoring import causal, retained_heap
from audit.scoring.base import ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.options import CausalOptions
from tests.scoring.tiny_models import CORPUS, loaded, tiny_llama

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
needs_glibc = pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")

#: In a fresh process, as a batch loop allocates: minor page faults of a second pass of
#: ten "batches" (eight 3 MB tensors and one of 96 MB each, freed at the batch's end),
#: with glibc's defaults or inside the retained heap.
FAULTS = """
import resource, sys, torch
from audit.scoring.retained_heap import retained_heap

def faults():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        activations = [torch.ones(750_000) for _ in range(8)]
        logits = torch.ones(24_000_000)
        del activations, logits
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

if sys.argv[1] == "plain":
    faults()
    print(faults(), False)
else:
    with retained_heap(torch.device("cpu")) as raised:
        faults()
        print(faults(), raised)
"""


def _second_pass_faults(mode: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", FAULTS, mode], capture_output=True, text=True, check=True
    )
    faults, raised = done.stdout.split()
    return int(faults), raised


@needs_glibc
def test_freed_memory_is_reused_without_page_faults() -> None:
    plain, _ = _second_pass_faults("plain")
    kept, raised = _second_pass_faults("kept")
    assert raised == "True"
    # glibc's defaults map and fault in the 96 MB anew every batch (24,576 pages)
    assert plain > 10 * 20_000
    assert kept < 1_000


class _Recording:
    """The real C library, with its `mallopt` and `malloc_trim` calls recorded."""

    def __init__(self, libc: ctypes.CDLL) -> None:
        self.libc = libc
        self.calls: list[tuple[str, tuple[int, ...]]] = []

    def mallopt(self, option: int, value: int) -> Any:
        self.calls.append(("mallopt", (option, value)))
        return self.libc.mallopt(option, value)

    def malloc_trim(self, pad: int) -> Any:
        self.calls.append(("malloc_trim", (pad,)))
        return self.libc.malloc_trim(pad)


@needs_glibc
def test_only_the_outermost_exit_hands_memory_back(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = retained_heap._glibc()
    assert libc is not None
    recording = _Recording(libc)
    monkeypatch.setattr(retained_heap, "_glibc", lambda: recording)
    cpu = torch.device("cpu")
    with retained_heap.retained_heap(cpu) as outer:
        with retained_heap.retained_heap(cpu) as inner:
            pass
        assert ("malloc_trim", (0,)) not in recording.calls
    assert outer and inner
    assert recording.calls[-1] == ("malloc_trim", (0,))
    assert ("mallopt", (-3, retained_heap.RETAINED_BYTES)) in recording.calls


def test_nothing_changes_off_the_cpu_or_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    with retained_heap.retained_heap(torch.device("cuda")) as raised:
        assert raised is False
    monkeypatch.setattr(retained_heap, "_glibc", lambda: None)
    with retained_heap.retained_heap(torch.device("cpu")) as raised:
        assert raised is False


def test_scores_are_the_same_bits_with_and_without(monkeypatch: pytest.MonkeyPatch) -> None:
    model = loaded(tiny_llama())

    def scores() -> np.ndarray:
        out = LL_SCORER.score_sentences(model, CORPUS, ScoringCall(CausalOptions(), lambda _: None))
        return np.array([s.score for s in out])

    kept = scores()
    monkeypatch.setattr(causal, "retained_heap", lambda _device: contextlib.nullcontext(False))
    np.testing.assert_array_equal(kept, scores())
