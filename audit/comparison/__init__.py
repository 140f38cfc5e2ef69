"""Two runs compared: models matched, mismatches found, measures paired and tested.

Works from two `AuditResult`s (and their score tables) alone; the paired test itself is
handed in (`PairedTest`), so this package imports no measure, scorer or registry.
"""
