"""The one trainer: every trained artefact (debiasing variants, bias-controlled models,
extrinsic fine-tunes) is trained by `loop.run_loop` on an objective that implements
`objective.TrainingObjective`, and kept in a content-keyed folder (`store.py`). See
docs/training.md.

This package imports nothing from the rest of the tool but `audit.errors`; its users
(`audit.variants.trainer`, `audit.extrinsic.finetune.tune`) bring the objectives.

| module | what |
|---|---|
| `loop.py` | `run_loop`: the steps, checkpoints and resuming, progress, a step hook |
| `objective.py` | `TrainingObjective` (the protocol), `StepLoss` |
| `objectives/lm.py` | masked-LM and next-token objectives |
| `schedule.py` | per-step seeds, batch order, learning-rate factor |
| `optimizer.py` | AdamW with decay on matrices only, clipping norm |
| `checkpoint.py` | atomic checkpoints |
| `tracker.py` | the loss curve and counters |
| `status.py` | `TrainingStatus`, `TrainingInterrupted` |
| `device.py` | device label, forked RNG, the model left for inference after a training |
| `dropout.py` | dropout settings for the length of a training |
| `lora.py` | LoRA adapters (peft), merged at the end |
| `encode.py` | sentences to token ids for the LM objectives |
| `store.py` | content keys and the artefact folder: done marker, work folder |
"""
