"""The datasets of the extrinsic tasks (`audit.data.task_entry`): one module per dataset
with its rows' type, its reader and its `ENTRY`, registered in `audit.data.catalog`'s
`TASK_DATASETS`. Importing a module here imports no numerical library."""
