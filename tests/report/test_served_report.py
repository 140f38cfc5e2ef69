"""What page 1 and the model table say of a served model (its endpoint without
credentials, the server's model id, the probe) and of a chat template; a served model's
precision is not called "reduced"; a run without either says nothing of them."""

from __future__ import annotations

from audit.report.build import build_report
from audit.report.chat import chat_blocks
from audit.report.index import MeasurementIndex
from audit.report.precision import reduced_models
from audit.report.render import render_html
from audit.report.served import model_source, served_blocks
from audit.results import AuditResult, ChatTemplateRecord, EndpointRecord
from tests.report.synthetic import small_result

ENDPOINT = EndpointRecord(
    url="https://gateway.example/v1",
    model="smollm2",
    server_model="smollm2 (/models/smollm2-q4)",
    revision="2026-11",
    bos_text="<|im_start|>",
    probe_digest="0123456789ab" + "f" * 52,
    probe_verdict="aligned",
)
CHAT = ChatTemplateRecord(
    source="auto: the model's own, from model.gguf", sha256="ab" * 32, system_prompt="Be brief."
)


def served_run(changed: bool = False) -> AuditResult:
    result = small_result([], models=("served", "local"))
    endpoint = ENDPOINT.model_copy(update={"probe_changed_from": "9" * 64 if changed else None})
    served = result.models[0].model_copy(
        update={
            "device": "endpoint",
            "precision": "served",
            "source": "endpoint:https://gateway.example/v1 model=smollm2@2026-11",
            "endpoint": endpoint,
            "chat_template": CHAT,
        }
    )
    return result.model_copy(update={"models": [served, result.models[1]]})


def test_page_one_names_the_endpoint_probe_and_template() -> None:
    index = MeasurementIndex(served_run())
    (block,) = served_blocks(index)
    assert block.heading == "Served models." and block.emphasis != "warn"
    for fact in ("https://gateway.example/v1", "smollm2 (/models/smollm2-q4)", "2026-11"):
        assert fact in block.text
    assert "probe aligned, digest 0123456789ab" in block.text
    (chat,) = chat_blocks(index)
    assert "served" in chat.text and "with a system prompt" in chat.text
    assert "as this run did for local" in chat.text
    assert reduced_models(index.result) == {}  # "served" is not a reduced dtype


def test_a_changed_probe_is_a_warning_on_page_one() -> None:
    (block,) = served_blocks(MeasurementIndex(served_run(changed=True)))
    assert block.emphasis == "warn" and "no cached score was reused" in block.text


def test_the_model_table_shows_the_endpoint_and_template() -> None:
    served = served_run().models[0]
    cell = model_source(served)
    assert cell.startswith("served: https://gateway.example/v1, server model smollm2")
    assert "chat template auto: the model's own, from model.gguf (sha256 abababababab)" in cell
    html = render_html(build_report(served_run()))
    assert "Served models." in html and "Chat templates." in html


def test_a_local_run_says_nothing_of_either() -> None:
    index = MeasurementIndex(small_result([], models=("a",)))
    assert served_blocks(index) == [] and chat_blocks(index) == []
