"""What the chat-template pipeline tests share: a tiny GPT-2, three BBQ questions, a chat
template file, and one audit run per spec in its own folder beside them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from audit.testing.run import AuditRun, run_spec
from tests.data.test_bbq import bbq_row, write_release
from tests.models.tiny import save_tiny_gpt2

TEMPLATE = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
#: What every run's folder links: the model, the BBQ release and the template.
INPUTS = ("models", "BBQ", "template.jinja")


def write_inputs(root: Path) -> None:
    """models/gpt2, BBQ/ (three Age questions) and template.jinja under `root`."""
    save_tiny_gpt2(root / "models" / "gpt2")
    rows = [
        bbq_row(i, condition=c, polarity=p, label=2 if c == "ambig" else i % 2)
        for i, (c, p) in enumerate([("ambig", "neg"), ("disambig", "neg"), ("ambig", "nonneg")])
    ]
    write_release(root / "BBQ", {"Age": rows})
    (root / "template.jinja").write_text(TEMPLATE)


def run_each(
    root: Path, specs: Mapping[str, dict[str, Any]], *, one_cache: bool
) -> dict[str, AuditRun]:
    """Each spec run, in order, in `root/<name>` with the inputs linked; `one_cache`: all
    on one score cache (`root/cache`), else each on its own."""
    runs: dict[str, AuditRun] = {}
    for name, spec in specs.items():
        folder = root / name
        folder.mkdir()
        for shared in INPUTS:
            (folder / shared).symlink_to(root / shared)
        if one_cache:
            (root / "cache").mkdir(exist_ok=True)
            (folder / "cache").symlink_to(root / "cache", target_is_directory=True)
        runs[name] = run_spec(spec, folder)
    return runs
