"""lm-evaluation-harness's own CrowS-Pairs functions, for the local task file beside this
one (runs inside lm-evaluation-harness's environment, not the project's)."""

from lm_eval.tasks.crows_pairs.utils import doc_to_choice, process_results

__all__ = ["doc_to_choice", "process_results"]
