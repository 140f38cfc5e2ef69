"""Per-sentence scores of masked and causal LMs (METHODS.md section 2)."""
