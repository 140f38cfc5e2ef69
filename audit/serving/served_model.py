"""A model behind an endpoint: probed and fingerprinted before anything is scored
(`prepare_served`), then connected to score (`connect`), scoring the registered scorers
that need only the log-probabilities of given text (`ServedModel.score`).

The fingerprint is `audit.models.served.ServedFacts.fingerprint`. When the probe's digest
differs from the one the last run on this cache saw for the same
endpoint, model name and revision, a different model (or build, or quantisation) answers
behind that name: its scores go to a new cache namespace, and `ServedFacts.changed_from`
says so for the run to show.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from audit.atomic_write import write_text_atomic
from audit.models.chat_template import tokenizer_chat
from audit.models.prepared import PreparedModel
from audit.models.resolved import ResolvedModel
from audit.models.served import SERVED_DEVICE, SERVED_PRECISION, ServedFacts
from audit.models.sources import EndpointSource, ModelSpec
from audit.scoring.base import (
    ProgressCallback,
    ScorerShape,
    ScoringCall,
    ScoringInputError,
    perplexity_of,
)
from audit.serving.client import CompletionClient, EndpointError, EndpointSettings, public_url
from audit.serving.llama_server import LlamaServer, start_llama_server
from audit.serving.prompt_logprobs import (
    first_token_table,
    probe_alignment,
    served_choice_log_likelihoods,
    served_log_likelihoods,
)


def endpoint_settings(source: EndpointSource) -> EndpointSettings:
    return EndpointSettings(
        base_url=source.endpoint,
        model=source.model,
        api_key_env=source.api_key_env,
        timeout_s=source.timeout_s,
        max_retries=source.max_retries,
        backoff_s=source.backoff_s,
        in_flight=source.in_flight,
        logprobs_request=source.logprobs_request,
    )


def endpoint_source(spec: ModelSpec) -> EndpointSource:
    if not isinstance(spec.source, EndpointSource):
        raise TypeError(f"model '{spec.id}' is not served")
    return spec.source


def server_model_id(client: CompletionClient, model: str) -> str:
    """The id the server lists for `model` (GET models). A server that lists models but
    not this one is an error naming those it serves."""
    listed = client.get("models")
    data = listed.get("data")
    entries: list[dict[str, Any]] = (
        [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    )
    ids = [str(e.get("id")) for e in entries]
    if model not in ids:
        raise EndpointError(
            f"endpoint {client.where}: serves {', '.join(ids) or 'no model'}, not '{model}'; "
            "set `model:` to one of those"
        )
    entry = entries[ids.index(model)]
    root = entry.get("root")
    return f"{model} ({root})" if isinstance(root, str) and root and root != model else model


def probe_endpoint(spec: ModelSpec, cache_dir: Path) -> ServedFacts:
    """Reach the endpoint, check that it serves the model and returns aligned prompt
    log-probabilities, and fingerprint it. Raises EndpointError (naming the model and
    the endpoint) when it cannot be audited."""
    source = endpoint_source(spec)
    client = CompletionClient(endpoint_settings(source))
    server_model = server_model_id(client, source.model)
    probe = probe_alignment(client, source.bos_text)
    if probe.verdict != "aligned":
        hint = (
            "each prompt token is paired with the prediction of the token after it, as "
            "llama.cpp servers do without the BOS token: set `bos_text` to the text of the "
            "model's BOS token (SmolLM2: '<|im_start|>')"
            if probe.verdict == "shifted by one"
            else "the echoed log-probabilities do not follow the canary text at all"
        )
        raise EndpointError(
            f"model '{spec.id}' at {client.where}: the alignment probe found {probe.verdict} "
            f"prompt log-probabilities ({probe.aligned} of {probe.entries} tokens predicted "
            f"as themselves, {probe.shifted} as the next token); {hint}"
        )
    facts = ServedFacts(
        endpoint=public_url(source.endpoint),
        model=source.model,
        server_model=server_model,
        revision=source.revision,
        bos_text=source.bos_text,
        probe_digest=probe.digest,
        probe_verdict=probe.verdict,
        logprobs_request=source.logprobs_request,
    )
    return _remember_probe(facts, cache_dir)


def _probe_record(facts: ServedFacts, cache_dir: Path) -> Path:
    name = json.dumps([facts.endpoint, facts.model, facts.revision or ""])
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:24]
    return cache_dir / "endpoints" / f"{digest}.json"


def _remember_probe(facts: ServedFacts, cache_dir: Path) -> ServedFacts:
    """Store the probe's digest; return the facts with `changed_from` set when the last
    run's digest for the same endpoint, model and revision differs."""
    path = _probe_record(facts, cache_dir)
    before: str | None = None
    try:
        before = str(json.loads(path.read_text())["probe_digest"])
    except (OSError, ValueError, KeyError, TypeError):
        before = None
    record = {
        "endpoint": facts.endpoint,
        "model": facts.model,
        "revision": facts.revision,
        "server_model": facts.server_model,
        "probe_digest": facts.probe_digest,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(record, indent=2))
    except OSError:
        pass  # a read-only cache: the comparison is only lost, the fingerprint still holds
    if before is not None and before != facts.probe_digest:
        return replace(facts, changed_from=before)
    return facts


@dataclass(frozen=True)
class ServedModel:
    """A served model ready to score (`audit.scoring.base.ServedScoring`): its client,
    the BOS text and, for a server that gives the first token after the BOS no value of
    its own, the distribution after the BOS (every sentence's first token is looked up
    there; None when the server gives it)."""

    model_id: str
    fingerprint: str
    facts: ServedFacts
    client: CompletionClient
    first_tokens: dict[str, float] | None
    server: LlamaServer | None = None  # a local llama.cpp server started to score it

    def close(self) -> None:
        """Stop the server started for this model, if any."""
        if self.server is not None:
            self.server.stop()

    @property
    def entries_per_commit(self) -> int:
        return 8 * self.client.settings.in_flight

    def traffic(self, seconds: float) -> str:
        """Requests and retries since the last call, and their rate over `seconds`."""
        requests, retries = self.client.take_counts()
        rate = requests / seconds if seconds > 0 else 0.0
        return (
            f"{requests} requests to {self.facts.endpoint} ({retries} retried) in "
            f"{seconds:.1f} s, {rate:.1f} requests/s with {self.client.settings.in_flight} "
            "in flight"
        )

    def score(
        self, scorer: str, shape: ScorerShape, inputs: Sequence[object], call: ScoringCall
    ) -> Sequence[object]:
        """ll, ppl (sentences) and choice_ll (questions) from the endpoint's prompt
        log-probabilities, as the local scorers compute them (formula arithmetic)."""
        if call.options.compat != "formula":
            raise ScoringInputError(
                f"scorer '{scorer}' with compat: {call.options.compat} scores without the BOS; a "
                f"served model ('{self.model_id}') is scored with it only (compat: formula)"
            )
        if scorer in ("ll", "ppl") and shape == "sentence":
            texts = [str(t) for t in inputs]
            scores = served_log_likelihoods(
                self.client,
                texts,
                bos_text=self.facts.bos_text,
                first=self.first_tokens,
                progress=call.progress,
            )
            return scores if scorer == "ll" else [perplexity_of(s) for s in scores]
        if scorer == "choice_ll" and shape == "choice":
            questions = [_question(q) for q in inputs]
            return served_choice_log_likelihoods(
                self.client,
                questions,
                bos_text=self.facts.bos_text,
                progress=_answers_only(questions, call.progress),
            )
        raise ScoringInputError(
            f"scorer '{scorer}' cannot score the served model '{self.model_id}': through an "
            "endpoint only ll, ppl and choice_ll are computed"
        )


def _question(value: object) -> tuple[str, tuple[str, ...]]:
    """A choice input, (prompt, answers), as `ChoiceInput.inputs` builds it."""
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], tuple)):
        raise TypeError(f"a multiple-choice input is (prompt, answers), not {value!r}")
    return str(value[0]), tuple(str(a) for a in value[1])


def _answers_only(
    questions: Sequence[tuple[str, tuple[str, ...]]], progress: ProgressCallback
) -> ProgressCallback:
    """Progress counts answers, as the local scorer's does: the requests for the prompts
    alone (one per distinct prompt, sent first) are not counted."""
    prompts = len({prompt for prompt, _ in questions})
    seen = 0

    def advance(n: int) -> None:
        nonlocal seen
        before = seen
        seen += n
        counted = max(0, seen - prompts) - max(0, before - prompts)
        if counted:
            progress(counted)

    return advance


def connect(spec: ModelSpec, facts: ServedFacts) -> ServedModel:
    """The served model, probed again: a model swapped behind the endpoint since the run
    was planned is an error, not a silent mix of two models' scores."""
    source = endpoint_source(spec)
    client = CompletionClient(endpoint_settings(source))
    probe = probe_alignment(client, source.bos_text)
    if probe.digest != facts.probe_digest:
        raise EndpointError(
            f"model '{spec.id}' at {client.where}: the probe's digest changed during the run "
            f"({facts.probe_digest[:12]} -> {probe.digest[:12]}): a different model answers "
            "now; run again"
        )
    return ServedModel(
        model_id=spec.id,
        fingerprint=facts.fingerprint,
        facts=facts,
        client=client,
        first_tokens=None if probe.first_scored else first_token_table(client, source.bos_text),
    )


def prepare_served(spec: ModelSpec, cache_dir: Path) -> PreparedModel:
    """A served model prepared for a run: probed and fingerprinted; it has no files."""
    facts = probe_endpoint(spec, cache_dir)
    resolved = ResolvedModel(
        model_id=spec.id,
        source=facts.source,
        directory=cache_dir / "endpoints",
        gguf_file=None,
        files={},
        cache_dir=cache_dir,
        revision=facts.revision,
    )
    return PreparedModel(
        spec=spec,
        resolved=resolved,
        model_type="causal",
        fingerprint=facts.fingerprint,
        device=SERVED_DEVICE,
        precision=SERVED_PRECISION,
        served=facts,
    )


#: The model name a local llama.cpp server is started with.
LOCAL_ALIAS = "local"


def start_local_backend(model: PreparedModel, cache_dir: Path) -> ServedModel:
    """A `backend: llama_cpp` model: a llama.cpp server started on 127.0.0.1 with its
    GGUF file, probed like any endpoint; `ServedModel.close` stops it. The model keeps
    its file fingerprint and the precision label that names llama.cpp (its cache key)."""
    gguf_name = model.resolved.gguf_file
    if gguf_name is None:
        raise EndpointError(f"model '{model.spec.id}': backend: llama_cpp needs a GGUF file")
    gguf = model.resolved.directory / gguf_name
    log = cache_dir / "llama-server" / f"{model.spec.id}.log"
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    server = start_llama_server(gguf, alias=LOCAL_ALIAS, log=log, n_ctx=1024, threads=threads)
    try:
        bos_text = tokenizer_chat(gguf).bos_text  # the GGUF's own BOS token text
        settings = EndpointSettings(base_url=server.base_url, model=LOCAL_ALIAS, in_flight=2)
        client = CompletionClient(settings)
        probe = probe_alignment(client, bos_text)
        if probe.verdict != "aligned":
            raise EndpointError(
                f"model '{model.spec.id}': the llama.cpp server's prompt log-probabilities are "
                f"{probe.verdict} ({probe.aligned} of {probe.entries} canary tokens aligned) "
                f"with the BOS text {bos_text!r}; use backend: torch"
            )
        facts = ServedFacts(
            endpoint=server.base_url,
            model=LOCAL_ALIAS,
            server_model=f"{gguf.name} ({model.precision})",
            revision=None,
            bos_text=bos_text,
            probe_digest=probe.digest,
            probe_verdict=probe.verdict,
        )
        return ServedModel(
            model_id=model.spec.id,
            fingerprint=model.fingerprint,
            facts=facts,
            client=client,
            first_tokens=None if probe.first_scored else first_token_table(client, bos_text),
            server=server,
        )
    except BaseException:
        server.stop()
        raise
