"""A local llama.cpp server (llama-cpp-python's OpenAI-compatible `llama_cpp.server`)
started on 127.0.0.1 for one GGUF file, and stopped again: the fast CPU path for GGUF
models (`backend: llama_cpp`) and the real server the tests audit.

The server is started with `--logits_all true` (prompt log-probabilities need the logits
of every position) and logs to a file, never to a pipe that could fill and stop it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from audit.errors import AuditUserError

#: How long a server may take to load its model and listen.
START_TIMEOUT_S = 180.0


class LlamaServerError(AuditUserError):
    """The local llama.cpp server could not be started."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LlamaServer:
    """One running server: its URL (`base_url`, ending in /v1), process and log file."""

    gguf: Path
    alias: str
    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)

    def kill(self) -> None:
        """SIGKILL: as a crash or an out-of-memory kill stops a server."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def start_llama_server(
    gguf: Path,
    *,
    alias: str,
    log: Path,
    port: int | None = None,
    n_ctx: int = 2048,
    threads: int | None = None,
) -> LlamaServer:
    """Start `python -m llama_cpp.server` for `gguf` and wait until it listens."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise LlamaServerError(
            "the llama_cpp backend needs llama-cpp-python with its server: "
            "pip install 'llama-cpp-python[server]' (scripts/install.sh builds it)"
        )
    port = free_port() if port is None else port
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        alias,
        "--logits_all",
        "true",
        "--n_ctx",
        str(n_ctx),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    if threads is not None:
        command += ["--n_threads", str(threads)]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, env=dict(os.environ)
        )
    server = LlamaServer(gguf, alias, port, log, process)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            raise LlamaServerError(
                f"the llama.cpp server for {gguf} stopped while starting (exit "
                f"{process.returncode}); its log {log} ends: {_tail(log)}"
            )
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return server
        if time.monotonic() > deadline:
            server.kill()
            raise LlamaServerError(
                f"the llama.cpp server for {gguf} did not listen on port {port} within "
                f"{START_TIMEOUT_S:.0f} s; its log {log} ends: {_tail(log)}"
            )
        time.sleep(0.25)


@contextlib.contextmanager
def llama_server(gguf: Path, *, alias: str, log: Path, **options: int) -> Iterator[LlamaServer]:
    """A server for the `with` block, stopped at its end whatever happens."""
    server = start_llama_server(gguf, alias=alias, log=log, **options)
    try:
        yield server
    finally:
        server.stop()


def _tail(log: Path, size: int = 1500) -> str:
    try:
        return " ".join(log.read_text(errors="replace")[-size:].split())
    except OSError:
        return "(unreadable)"
