"""Measures over a dataset's scores (METHODS.md section 3), each with a card."""
