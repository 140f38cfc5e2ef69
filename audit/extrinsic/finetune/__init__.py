"""Fine-tuning for the extrinsic tasks (METHODS.md section 6; docs/extrinsic.md,
"Fine-tuning"): a regression head (STS-B) or a classification head (NLI, BiasBios) on a
copy of an audited model's encoder, fine-tuned seeded and resumable, with a callback every
K steps for the bias-over-fine-tuning curve, cached like a variant.

This package's `__init__` imports nothing (results.json's readers import `records.py`
alone); the parts that need torch are in their modules:

| module | what |
|---|---|
| `settings.py` | `FineTuneSettings` |
| `records.py` | `FineTuneSummary`, `DevEvaluation` |
| `examples.py` | `LabelledText`, `ScoredPair`, converters, data hashes |
| `inputs.py` | texts and pairs to token ids, per model type |
| `task_head.py` | `TaskHead` (data): `REGRESSION`, `classification(labels)` |
| `heads.py` | `HeadLayers`, `TaskModel`, pooling, `build_task_model` |
| `tune.py` | `finetune(loaded, head, ...)`: the head's objective in the one loop |
| `predict.py` | batched predictions, similarities, class probabilities, dev checks |
| `store.py` | the cache: `planned_key`, `cached_finetune`, `load_finetuned` |
"""
