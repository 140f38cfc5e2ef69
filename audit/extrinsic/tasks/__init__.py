"""One module per extrinsic task (its data, what a fine-tuned model predicts, its measure);
each ends with `TASK`, registered in `audit.extrinsic.catalog`."""
