"""The stages of an audit run, each a module with one job; `audit.engine` calls them in
order. `audit_plan` assembles the one plan (`plan_audit`, used by `audit run` and `audit
plan`) from the parts `plan_parts` plans; `inputs` reads the datasets and prepares the
models; `training` trains the planned variants; `worker` scores a model's units (the
executors' `Worker`); `run_stages` scores every unit and runs SEAT, the language-modelling
cost and the studies; `extrinsic` fine-tunes and measures the extrinsic tasks;
`measuring` computes the measures; `records`, `variant_results` and `run_result`
assemble results.json; `steps` words what a run will do and did."""
