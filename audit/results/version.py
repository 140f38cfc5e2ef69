"""The version of the results.json format: MAJOR.MINOR, written as a string ("3.0").

- A new field or section raises MINOR. A reader accepts a file of a newer MINOR of its
  MAJOR: it leaves out what it does not know and says so (`audit.results.unknown`).
- A change that an older reader cannot skip (a field renamed, removed or given a new
  meaning) raises MAJOR. A reader refuses a newer MAJOR and migrates older ones
  (`audit/migrations/`).
- Files written before this scheme carry a bare integer: 1 (migrated) or 2, read as 2.0.
  Version 2.0 is every section written under "2" (variants, corpora, meta_evaluations,
  extrinsic, precision_checks included).
- 2.2 adds `units[].set_aside`: cache database files set aside as corrupt.
- 3.0 gives `comparisons[].verdict` new values: what moved (`closer to the ideal`,
  `further from the ideal`, `changed`, `no detectable change`, `undefined`) instead of
  `better` / `worse` / `not distinguishable`; a 2.x file is migrated on read
  (`audit/migrations/v2.py`). Meta-evaluation rows with the same values share a rank,
  and each row after rank 1 gets `gap_to_first` with its CI and `ties_first`.
  3.0 also adds `lm_quality`: the variants' (pseudo-)perplexity on held-out text
  against their base's.
  3.0 also adds to `correlations[]` the corrected p-values (`correction`,
  `test_family`, `family_size`, `*_p_corrected`, `kendall_p_floor`, `alpha`),
  `model_types`, `excluded` and `failed_kept`, to each series its `scorer`, `scale`
  and `ideal_value`, and `audit.correlations` (the correction and what became of
  failed dev checks); a file before 3.0 reads with raw series (`scale: raw`) and no
  correction.
  3.0 also adds `seat`: per SEAT test and model the sets' sizes, effect size, permutation
  p-value (exact or sampled, n_samples, seed) and pooling, with the mean |d| per bias
  type; a file without it reads with `seat: null`.
  3.0 also adds `extrinsic[].chosen_checkpoint`: the fine-tuning checkpoint a task
  was measured at (best dev score by default); older files were measured at the
  last step.
- 4.0 decides `comparisons[].verdict` after a multiple-comparison correction over each
  family of comparisons (Holm by default; `verdict_uncorrected` keeps the verdict of the
  two intervals alone), adds the verdict `borderline` (the decision depends on the
  resampling), `difference_p` (McNemar's exact test for pair-indicator measures),
  `difference_se`, `resamples_for_p`, `correction`, `test_family`, `family_size`,
  `p_value_corrected`, `difference_p_corrected`, `borderline_reason`,
  `detectable_difference` (at `detectable_power`) and `same_test_as`; the distance
  test's `p_value` is now (count + 1) / (B + 1)-based, never 0. `correlations[].conclusive`
  means the Kendall test had the power asked for at the spec's effect size
  (`detection`, a `DetectionLimit`); correlations add two-level bootstrap intervals of tau
  and rho (`*_ci_low/high`, `items_resampled`) and `trivial` (a pair that is one by
  construction). Meta-evaluations add `correction` and `detection`, their rows
  `spearman_p_corrected` and `items_resampled` (two-level intervals). `audit` adds
  `comparisons` (the correction and power) and `correlations.effect_size` / `.power`. A
  3.x file is migrated on read (`audit/migrations/v3.py`).
  4.0 also adds `extrinsic[].seeds` (one `ExtrinsicSeed` per fine-tuning seed when a
  task runs `finetune.seeds` k > 1: seed, value, CI, note, kept, dev check, chosen
  checkpoint, curve, key, cached, seconds) and `extrinsic[].seed_sd`, `seed_min`,
  `seed_max` (the spread of the kept seeds' values); the record's value is then the mean
  over the kept seeds. A file without them reads with `seeds: []` (one fine-tuning).
- 4.1 adds `models[].endpoint` for a model scored through a serving endpoint: its URL
  (no credentials), model name, the server's model id, the stated revision, the BOS
  text, and the alignment probe's verdict and digest (and the digest the previous run
  saw when it changed). Its `precision` is `served` and its `device` `endpoint`.
  4.1 also adds `models[].chat_template` (source, sha256, system prompt) when a model's
  multiple-choice prompts were wrapped in a chat template (`chat_template:` in the spec),
  and the precision label `cpu/llama.cpp-<version>` of `backend: llama_cpp`.
  4.1 also adds `datasets[].chat_template` (the setting, its system prompt and per
  model the template used) when a dataset gives its prompts its own chat template; the
  key is absent otherwise, so files of specs without one are written as before.
- 4.2 adds `models[].endpoint.logprobs_request`: how the served model's prompt
  log-probabilities were asked for ('echo', or vLLM's 'prompt_logprobs'); a 4.1 file reads
  with 'echo', the only way 4.1 asked.

MAJOR and MINOR are integers compared as numbers: 2.10 is newer than 2.9.
"""

from __future__ import annotations

import re
from typing import Annotated, NamedTuple

from pydantic import BeforeValidator

_PATTERN = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
ACCEPTED = "'MAJOR.MINOR' (e.g. '2.1') or a bare integer major version (e.g. 2)"


class ResultsVersion(NamedTuple):
    """A results.json format version, ordered as (major, minor)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, value: object) -> ResultsVersion:
        """`"2.1"` -> (2, 1); a bare integer `2` (files before MAJOR.MINOR) -> (2, 0).

        Raises ValueError naming the value and what is accepted."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return cls(value, 0)
        if isinstance(value, str) and (match := _PATTERN.fullmatch(value)):
            return cls(int(match[1]), int(match[2]))
        raise ValueError(f"results_version {value!r} is not a version; expected {ACCEPTED}")

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


#: The version this code writes. 2.1 added `version` to every plug-in card.
RESULTS_VERSION = ResultsVersion(4, 2)


def _normalise(value: object) -> str:
    return str(ResultsVersion.parse(value))


#: `results_version` as results.json holds it: "MAJOR.MINOR" (a bare integer is read as N.0).
VersionText = Annotated[str, BeforeValidator(_normalise)]
