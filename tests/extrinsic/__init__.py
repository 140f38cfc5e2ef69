"""Tests of the extrinsic tasks' data and measures (audit/extrinsic)."""
