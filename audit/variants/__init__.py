"""Model variants (debiasing and bias-controlled fine-tuning), audited like any model."""
