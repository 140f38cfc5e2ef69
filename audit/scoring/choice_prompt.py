"""The prompt a multiple-choice question is scored with (docs/measures/methods/bbq.md).

Each answer is scored as the continuation of the prompt: causal LMs get
log P(" " + answer | prompt), masked LMs the pseudo-log-likelihood of the answer's
tokens in `prompt + " " + answer`. A plain question-and-answer format for a base LM
(no instruction, and the answer list is not shown: each answer is scored on its own):

    <context>
    Question: <question>
    Answer: <answer>
"""

from __future__ import annotations

#: Between the prompt and each answer.
ANSWER_SEPARATOR = " "


def choice_prompt(context: str, question: str) -> str:
    """The prompt of a question: its context, then 'Question: ...', then 'Answer:'."""
    return f"{context.strip()}\nQuestion: {question.strip()}\nAnswer:"
