"""Set-up hooks for the Ray workers of tests/test_ray_executor.py (Ray runs the hook in
each worker process as it starts; see `runtime_env["worker_process_setup_hook"]`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: While the file this names exists, workers pause before each chunk of scores they send.
SLOW_MARKER = "AUDIT_TEST_SLOW_SCORING"


def slow_scoring_while_marked() -> None:
    """Make a worker's scoring slow while the test's marker file exists, so that a test
    can kill the worker in the middle of a task."""
    from audit.scoring import runner

    marker = Path(os.environ[SLOW_MARKER])
    compute: Callable[..., Iterator[Any]] = runner.compute_entries

    def slow(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for chunk in compute(*args, **kwargs):
            if marker.exists():
                time.sleep(1.0)
            yield chunk

    runner.compute_entries = slow  # type: ignore[assignment]
