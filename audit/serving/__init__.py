"""Models behind a serving endpoint: an OpenAI-compatible completions API scored from its
prompt-token log-probabilities (`client`: the HTTP side; `prompt_logprobs`: what the
answers mean, checked before they are believed)."""
