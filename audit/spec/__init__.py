"""The audit spec: pydantic models, YAML loading with line numbers, JSON Schema."""
