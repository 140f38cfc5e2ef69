"""SIGKILL at seeded moments while models are fine-tuned and while trained models,
results and reports are written (issue 19 item 7, 10 of its 20 kills); each rerun must
match the uninterrupted run exactly and no output is ever left half-written."""

from __future__ import annotations

from tests.crash.resume_check import resume_tests

test_a_killed_run_resumes_to_identical_results = resume_tests("fine-tuning", "writing")
