"""The he/she probe of bias-controlled fine-tuning (Kaneko et al. 2023): does a model
trained on more male sentences prefer "he" more?

Masked LMs: P(he) and P(she) at the mask of "[MASK] is a/an <occupation>." (the
tokenizer's own mask token; "he"/"she" for lower-casing tokenizers, else "He"/"She"; both
must be single tokens). Causal LMs: the sentence log-probabilities l_he and l_she of
"He is a/an <occupation>." and "She is a/an <occupation>." (sum of token log-probs, the
BOS token prepended when the tokenizer adds none, so "He"/"She" is scored), turned into
the two-way probabilities p_he = e^l_he / (e^l_he + e^l_she), p_she = 1 - p_he.
`he_share` is the mean over occupations of p_he / (p_he + p_she). The article is "an"
before a vowel letter, else "a".
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from audit.errors import AuditUserError
from audit.results import ProbeOccupation, ProbeRecord

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.models.self_debias import SelfDebias

OCCUPATIONS_FILE = Path("winogender") / "occupations-stats.tsv"
#: Sentences per forward pass.
PROBE_BATCH = 64


def load_probe_occupations(data_dir: Path) -> list[str]:
    """The occupations of `<data_dir>/winogender/occupations-stats.tsv` (column
    `occupation`), in file order, as they are spelled there."""
    path = Path(data_dir) / OCCUPATIONS_FILE
    if not path.is_file():
        raise AuditUserError(
            f"he/she probe: {path} does not exist; the probe's occupations are read from the "
            "shared data folder: pass --data-dir ../shared/data (or set AUDIT_DATA_DIR)"
        )
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if reader.fieldnames is None or "occupation" not in reader.fieldnames:
            raise AuditUserError(
                f"he/she probe: {path} has no `occupation` column (columns: "
                f"{', '.join(reader.fieldnames or [])}); expected the Winogender file"
            )
        found = [(row.get("occupation") or "").strip() for row in reader]
    occupations = list(dict.fromkeys(o for o in found if o))
    if not occupations:
        raise AuditUserError(f"he/she probe: {path} lists no occupation")
    return occupations


def article(word: str) -> str:
    """'an' before a vowel letter, else 'a'."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def _sigmoid(x: float) -> float:
    """1 / (1 + e^-x) without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _single_token(tokenizer: PreTrainedTokenizerBase, word: str) -> int:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        pieces = tokenizer.convert_ids_to_tokens(ids)
        raise AuditUserError(
            f"he/she probe: {word!r} is not a single token for this tokenizer ({pieces}), "
            "so P(he) and P(she) at the mask cannot be compared"
        )
    return int(ids[0])


def _lowercases(tokenizer: PreTrainedTokenizerBase) -> bool:
    return bool(tokenizer.tokenize("He") == tokenizer.tokenize("he"))


@dataclass(frozen=True)
class _Probed:
    """The model the probe runs on its device, with its tokenizer and, for a Self-Debias
    variant, the settings it scores with (None: the plain model)."""

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    self_debias: SelfDebias | None

    def logits(self, input_ids: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
        """The plain model's logits of a padded batch."""
        return self.model(
            input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device)
        ).logits

    def debiased(
        self,
        input_ids: torch.Tensor,
        attention: torch.Tensor,
        at: tuple[torch.Tensor, torch.Tensor],
        pad: int | None,
    ) -> torch.Tensor:
        """Self-Debias's log-probabilities [R, V] at the positions `at` (rows, columns)."""
        assert self.self_debias is not None, "debiased() is for a Self-Debias variant"
        rows, cols = (a.to(self.device) for a in at)
        return _debiased_log_probs(
            self.model,
            self.self_debias,
            input_ids.to(self.device),
            attention.to(self.device),
            rows,
            cols,
            pad=pad,
        )


def probe_he_she(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    model_type: Literal["masked", "causal"],
    occupations: Sequence[str],
    device: torch.device,
    self_debias: SelfDebias | None = None,
) -> ProbeRecord:
    """P(he) vs P(she) per occupation (see the module docstring), from the Self-Debias
    distribution when `self_debias` is given. The model's train/eval mode is restored
    afterwards."""
    if not occupations:
        raise AuditUserError("he/she probe: no occupations to probe")
    was_training = model.training
    model.eval()
    try:
        probed = _Probed(model, tokenizer, device, self_debias)
        if model_type == "masked":
            return _masked(probed, list(occupations))
        return _causal(probed, list(occupations))
    finally:
        model.train(was_training)


def _record(
    template: str, he: str, she: str, occupations: list[str], p_he: list[float], p_she: list[float]
) -> ProbeRecord:
    rows = [
        ProbeOccupation(occupation=o, p_he=h, p_she=s)
        for o, h, s in zip(occupations, p_he, p_she, strict=True)
    ]
    shares = [h / (h + s) if h + s > 0 else 0.5 for h, s in zip(p_he, p_she, strict=True)]
    return ProbeRecord(
        template=template,
        he=he,
        she=she,
        occupations=rows,
        mean_p_he=sum(p_he) / len(p_he),
        mean_p_she=sum(p_she) / len(p_she),
        he_share=sum(shares) / len(shares),
    )


def _masked(probed: _Probed, occupations: list[str]) -> ProbeRecord:
    import torch

    tokenizer = probed.tokenizer
    mask, mask_id = tokenizer.mask_token, tokenizer.mask_token_id
    if mask is None or mask_id is None:
        raise AuditUserError(
            "he/she probe: the tokenizer has no mask token; is the model a masked LM?"
        )
    he, she = ("he", "she") if _lowercases(tokenizer) else ("He", "She")
    he_id, she_id = _single_token(tokenizer, he), _single_token(tokenizer, she)
    p_he: list[float] = []
    p_she: list[float] = []
    for start in range(0, len(occupations), PROBE_BATCH):
        chunk = occupations[start : start + PROBE_BATCH]
        texts = [f"{mask} is {article(o)} {o}." for o in chunk]
        enc = tokenizer(texts, return_tensors="pt", padding=True)
        input_ids = enc["input_ids"]
        where = (input_ids == mask_id).nonzero()
        if len(where) != len(chunk) or not torch.equal(where[:, 0], torch.arange(len(chunk))):
            raise AuditUserError(
                "he/she probe: the tokenizer does not keep its mask token as one token in "
                f"{texts[0]!r}"
            )
        attention = enc["attention_mask"]
        with torch.inference_mode():
            if probed.self_debias is not None:
                at = (where[:, 0], where[:, 1])
                pad = tokenizer.pad_token_id
                probs = probed.debiased(input_ids, attention, at, pad).exp()
            else:
                logits = probed.logits(input_ids, attention)
                probs = torch.softmax(logits[where[:, 0], where[:, 1]].float(), dim=-1)
        p_he += probs[:, he_id].double().tolist()
        p_she += probs[:, she_id].double().tolist()
    return _record(f"{mask} is a/an <occupation>.", he, she, occupations, p_he, p_she)


def _causal(probed: _Probed, occupations: list[str]) -> ProbeRecord:
    import torch

    from audit.training.encode import bos_token_id, pad_token_id

    tokenizer, device = probed.tokenizer, probed.device
    bos = bos_token_id(tokenizer, probed.model)
    if bos is None:
        raise AuditUserError(
            "he/she probe: the model has no BOS token, so the first word of "
            "'He is a ...' cannot be scored and P(He) vs P(She) cannot be compared"
        )
    he, she = "He", "She"
    texts = [f"{p} is {article(o)} {o}." for o in occupations for p in (he, she)]
    ids = [list(x) for x in tokenizer(texts, add_special_tokens=True)["input_ids"]]
    ids = [x if x and x[0] == bos else [bos, *x] for x in ids]
    pad = pad_token_id(tokenizer)
    scores: list[float] = []
    for start in range(0, len(ids), PROBE_BATCH):
        chunk = ids[start : start + PROBE_BATCH]
        width = max(len(x) for x in chunk)
        input_ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        attention = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, seq in enumerate(chunk):
            input_ids[row, : len(seq)] = torch.tensor(seq)
            attention[row, : len(seq)] = 1
        with torch.inference_mode():
            targets = input_ids[:, 1:].to(device)
            if probed.self_debias is not None:
                rows = torch.arange(len(chunk)).repeat_interleave(width - 1)
                cols = torch.arange(width - 1).repeat(len(chunk))
                debiased = probed.debiased(input_ids, attention, (rows, cols), pad)
                token_lp = debiased.gather(-1, targets.reshape(-1, 1)).reshape(targets.shape)
            else:
                logits = probed.logits(input_ids, attention).float()
                logp = torch.log_softmax(logits[:, :-1], dim=-1)
                token_lp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            token_lp = token_lp * attention[:, 1:].to(device)
            scores += token_lp.double().sum(dim=1).tolist()
    p_he: list[float] = []
    p_she: list[float] = []
    for i in range(len(occupations)):
        l_he, l_she = scores[2 * i], scores[2 * i + 1]
        share = _sigmoid(l_he - l_she)
        p_he.append(share)
        p_she.append(1.0 - share)
    return _record("He/She is a/an <occupation>.", he, she, occupations, p_he, p_she)


def _debiased_log_probs(
    model: PreTrainedModel,
    self_debias: SelfDebias,
    input_ids: torch.Tensor,
    attention: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
    *,
    pad: int | None,
) -> torch.Tensor:
    """Self-Debias's log p~ [R, V] at (rows, cols), as the scorers compute it
    (`audit.scoring.self_debias`): the batch and its prefixed copies in one forward."""
    from audit.scoring.self_debias import debiased_log_probs, expand_batch

    wide = expand_batch(
        self_debias, input_ids, attention, rows, cols, pad_id=0 if pad is None else int(pad)
    )
    logits = model(input_ids=wide.ids, attention_mask=wide.attention).logits
    picked = logits[wide.rows, wide.cols]
    grouped = picked.reshape(self_debias.groups, len(rows), picked.shape[-1])
    return debiased_log_probs(
        grouped[0], grouped[1:], decay=self_debias.decay, epsilon=self_debias.epsilon
    )
