"""Checks of a dataset's own chat template (`datasets[].chat_template`): only datasets of
multiple-choice prompts take one, and `auto` on a served model needs the tokenizer files
its source names (as the model-level `chat_template: auto` does)."""

from __future__ import annotations

from audit.models.sources import EndpointSource
from audit.spec.dataset_checks import dataset_shape_of
from audit.spec.problems import Finding, Loc, show
from audit.spec.sections import SpecSections

#: What each dataset shape holds, in a refusal's words.
_HOLDS = {"pairs": "sentence pairs", "labelled": "labelled sentences"}


def check_dataset_chat(sections: SpecSections) -> list[Finding]:
    """A chat template on a dataset of sentences, and `auto` on a served model that
    names no tokenizer files."""
    if sections.datasets is None:
        return []
    findings: list[Finding] = []
    served = (
        []
        if sections.models is None
        else [
            m.id
            for _, m in sections.models.valid()
            if isinstance(m.source, EndpointSource) and m.source.tokenizer is None
        ]
    )
    for i, dataset in sections.datasets.valid():
        if dataset.chat_template is None:
            continue
        loc: Loc = ("datasets", i, "chat_template")
        shape = dataset_shape_of(dataset)
        if shape is not None and shape != "choices":
            findings.append(
                Finding(
                    loc,
                    f"dataset '{dataset.name}' holds {_HOLDS[shape]}, not prompts: a chat "
                    "template wraps the prompts of multiple-choice questions, and sentences "
                    "are always scored as raw text",
                    got=show(dataset.chat_template),
                    expected="no chat_template on this dataset (only on a dataset of "
                    "multiple-choice questions, such as bbq)",
                )
            )
        elif dataset.chat_template == "auto" and served:
            names = ", ".join(f"'{m}'" for m in served)
            findings.append(
                Finding(
                    loc,
                    f"dataset '{dataset.name}': chat_template: auto wraps its prompts in each "
                    "model's own template, applied here for a served model from the "
                    f"tokenizer files that `tokenizer:` names; the served model(s) {names} "
                    "name none",
                    got=show(dataset.chat_template),
                    expected="source.tokenizer: <folder or .gguf file> on those models, or "
                    "a template path",
                )
            )
    return findings
