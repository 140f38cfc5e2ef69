"""Statistics around every number: bootstrap CIs, tests, robustness, correlation, comparison."""
