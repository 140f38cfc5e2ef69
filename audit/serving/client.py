"""A client for an OpenAI-compatible completions endpoint, as a careful API client is:
several requests in flight, retries with exponential backoff on 429, 5xx and time-outs
(then an error naming the endpoint and the last status), a time-out per request, and the
API key read from one named environment variable, never stored, logged or shown.

Only the standard library: the audit does not need an HTTP package to reach a server.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from audit.errors import AuditUserError

#: Statuses worth another try: rate limits and server-side failures.
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


class EndpointError(AuditUserError):
    """A served model could not be reached or answered with something unusable."""


def public_url(url: str) -> str:
    """The endpoint as it may be shown: without user, password, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class EndpointSettings:
    """How to reach one endpoint. `api_key_env` names the environment variable that holds
    the key (None: no key); the key itself is read at each request and kept nowhere."""

    base_url: str
    model: str
    api_key_env: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 5
    backoff_s: float = 0.5
    in_flight: int = 4
    #: How prompt log-probabilities are asked for: `echo` (+ `logprobs`) or vLLM's
    #: `prompt_logprobs` (`audit.serving.prompt_logprobs`).
    logprobs_request: Literal["echo", "prompt_logprobs"] = "echo"

    def api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise EndpointError(
                f"endpoint {public_url(self.base_url)}: the environment variable "
                f"{self.api_key_env} (api_key_env) is not set or empty; set it to the API key"
            )
        return key


class CompletionClient:
    """POSTs JSON to `<base_url>/<path>` and returns the decoded answer."""

    def __init__(
        self,
        settings: EndpointSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self.requests = 0
        self.retries = 0
        self._lock = threading.Lock()

    def take_counts(self) -> tuple[int, int]:
        """Requests sent and retries made since the last call (then both start at 0)."""
        with self._lock:
            counts = (self.requests, self.retries)
            self.requests = self.retries = 0
        return counts

    @property
    def where(self) -> str:
        return public_url(self.settings.base_url)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request, retried on 429, 5xx, time-outs, refused and lost connections with
        exponential backoff (`backoff_s` x 2^attempt, at most `max_retries` retries)."""
        return self._request(path, json.dumps(body).encode("utf-8"))

    def get(self, path: str) -> dict[str, Any]:
        """One GET (e.g. `models`), retried as `post` is."""
        return self._request(path, None)

    def _request(self, path: str, data: bytes | None) -> dict[str, Any]:
        url = f"{self.settings.base_url.rstrip('/')}/{path.lstrip('/')}"
        method = "GET" if data is None else "POST"
        headers = {"Content-Type": "application/json"} if data is not None else {}
        key = self.settings.api_key()
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        last = "no answer"
        tries = 0
        for attempt in range(self.settings.max_retries + 1):
            tries = attempt + 1
            if attempt:
                with self._lock:
                    self.retries += 1
                self._sleep(self.settings.backoff_s * 2 ** (attempt - 1))
            with self._lock:
                self.requests += 1
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.settings.timeout_s) as answer:
                    decoded: dict[str, Any] = json.loads(answer.read().decode("utf-8"))
                    return decoded
            except urllib.error.HTTPError as error:
                last = f"HTTP {error.code}: {_detail(error)}"
                if error.code not in RETRY_STATUSES:
                    break
            except TimeoutError:
                last = f"no answer within {self.settings.timeout_s:g} s"
            except urllib.error.URLError as error:
                last = f"cannot connect ({error.reason})"
            except (ConnectionError, http.client.HTTPException) as error:
                last = f"the connection was lost ({type(error).__name__}: {error})"
            except json.JSONDecodeError as error:
                last = f"an answer that is not JSON ({error})"
                break
        raise EndpointError(
            f"endpoint {self.where}/{path.lstrip('/')}: gave up after {tries} "
            f"request(s); last: {last}"
        )

    def post_many(
        self,
        path: str,
        bodies: Sequence[dict[str, Any]],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Every body POSTed, `in_flight` at a time; the answers in the bodies' order."""
        out: list[dict[str, Any] | None] = [None] * len(bodies)
        with ThreadPoolExecutor(max_workers=max(1, self.settings.in_flight)) as pool:
            futures = {pool.submit(self.post, path, body): i for i, body in enumerate(bodies)}
            for future, index in futures.items():
                out[index] = future.result()
                if progress is not None:
                    progress(1)
        return [answer for answer in out if answer is not None]


def _detail(error: urllib.error.HTTPError) -> str:
    try:
        text = error.read().decode("utf-8", errors="replace")
    except OSError:
        text = ""
    return " ".join(text.split())[:200] or str(error.reason)
