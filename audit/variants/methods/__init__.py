"""The variant methods (METHODS.md section 5): what each trains on and with which
objective. Each module holds one method; `audit.variants.catalog` registers them."""
