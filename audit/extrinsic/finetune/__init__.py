"""Fine-tuning for the extrinsic tasks (METHODS.md section 6; docs/extrinsic.md,
"Fine-tuning"): a task head of any registered kind (`audit.extrinsic.head_kinds`) on a
copy of an audited model's encoder, fine-tuned seeded and resumable, with a callback every
K steps for the bias-over-fine-tuning curve, cached like a variant.

This package's `__init__` imports nothing; the parts that need torch are in their modules
(the summary and dev scores it records are `audit.results.finetune`'s):

| module | what |
|---|---|
| `settings.py` | `FineTuneSettings` |
| `examples.py` | `LabelledText`, `ScoredPair`, converters, data hashes |
| `inputs.py` | texts and pairs to token ids, per model type |
| `task_head.py` | `TaskHead` (data; the built-in kinds' heads are in `audit.extrinsic.kinds`) |
| `heads.py` | `HeadLayers`, `TaskModel`, pooling, `build_task_model` |
| `tune.py` | `finetune(loaded, head, ...)`: the head's objective in the one loop |
| `predict.py` | batched outputs (`predict_outputs`) |
| `store.py` | the cache: `planned_key`, `cached_finetune`, `load_finetuned` |
"""
