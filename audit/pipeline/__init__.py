"""The stages of an audit run, each a module with one job; `audit.engine` calls them in
order. `audit_plan` builds the one plan (`plan_audit`, used by `audit run` and `audit
plan`); `inputs` reads the datasets and prepares the models; `training` trains the
planned variants; `worker` scores a model's units (the executors' `Worker`);
`extrinsic` fine-tunes and measures the extrinsic tasks; `measuring` computes the
measures; `records` and `variant_results` assemble the records of results.json."""
