"""The cost of debiasing: each variant's language-modelling quality against its base on
held-out text (issue 20 item 5; docs/training.md, "Language-modelling cost").

`settings` is the spec's `lm_quality:` section (plain pydantic), `heldout` reads the
held-out text and keeps it apart from the variants' training text, `statistics` turns
per-sentence log-likelihoods into (pseudo-)perplexities, their ratio with a paired
bootstrap interval and the damaged / within / unclear verdict. The run's stage is
`audit.pipeline.lm_quality`; the report's side is `audit.report.lm_cost`.
"""
