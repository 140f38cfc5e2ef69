"""Extrinsic bias measures (STS-bias, BiasBios, NLI-bias)."""
