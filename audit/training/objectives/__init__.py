"""The objectives any model can train on: its own language-model objective (`lm.py`:
masked LM or next-token LM). Method-specific losses live next to their method (AT:
`audit.variants.methods.at_loss`); a task head's loss next to the fine-tuning
(`audit.extrinsic.finetune.tune.HeadObjective`)."""
