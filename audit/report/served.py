"""Page 1 and the model table on served models: which models were scored through an
endpoint, what the server said it was, and the probe that fingerprints it
(results.json `models[].endpoint`). No credential is ever in these: the URL was stored
without them."""

from __future__ import annotations

from audit.report.chat import template_words
from audit.report.formatting import join_words
from audit.report.index import MeasurementIndex
from audit.report.model import SummaryBlock
from audit.results import EndpointRecord, ModelRecord

#: Hex digits of a probe digest shown in reports (all 64 are in results.json).
PROBE_DIGITS = 12


def endpoint_words(endpoint: EndpointRecord) -> str:
    """'http://host:port/v1, server model smollm2 (revision r), probe aligned, digest abc'."""
    revision = f", revision {endpoint.revision}" if endpoint.revision else ""
    request = (
        ", log-probabilities from prompt_logprobs"
        if endpoint.logprobs_request == "prompt_logprobs"
        else ""
    )
    return (
        f"{endpoint.url}, server model {endpoint.server_model}{revision}, probe "
        f"{endpoint.probe_verdict}, digest {endpoint.probe_digest[:PROBE_DIGITS]}{request}"
    )


def model_source(model: ModelRecord) -> str:
    """The model table's source cell: the endpoint's facts for a served model, and the
    chat template its multiple-choice prompts were wrapped in, if any."""
    source = model.source if model.endpoint is None else f"served: {endpoint_words(model.endpoint)}"
    if model.chat_template is not None:
        source += f"; chat template {template_words(model.chat_template)}"
    return source


def served_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: the models scored through an endpoint, what identifies them, and what that
    means for their numbers (empty when every model was loaded here)."""
    served = [m for m in index.result.models if m.endpoint is not None]
    if not served:
        return []
    lines = [
        (f"{m.id}: " if len(served) > 1 else "") + endpoint_words(m.endpoint)
        for m in served
        if m.endpoint is not None
    ]
    changed = [m.id for m in served if m.endpoint is not None and m.endpoint.probe_changed_from]
    text = (
        f"{join_words([m.id for m in served])} "
        + ("was" if len(served) == 1 else "were")
        + " scored through a serving endpoint, from the log-probabilities the server returned "
        "for the given text: "
        + "; ".join(lines)
        + ". The numbers are the server's, from the weights and precision it serves (a GGUF "
        "server's quantised weights, a vLLM server's --dtype), which can differ from "
        "float32 weights loaded here; the probe digest identifies what answered."
    )
    if changed:
        text += (
            f" The probe of {join_words(changed)} differed from the previous run's on this "
            "cache, so no cached score was reused."
        )
    block = SummaryBlock(heading="Served models.", text=text, items=[])
    return [block.model_copy(update={"emphasis": "warn"})] if changed else [block]
