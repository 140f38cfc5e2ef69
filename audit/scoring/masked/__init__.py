"""The masked-LM subsystem: the scorers pll, pppl, cps, sss, aul, aula (`scorers`) and
tbs (`tbs`), the batched engine that runs every masked copy once (`engine`), its forward
pass and last-layer pruning (`forward`, `last_layer`), tokenising (`inputs`) and the
token alignment of sentence pairs (`alignment`). Every module here imports torch."""
