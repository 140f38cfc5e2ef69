"""Reports: a typed report model built from results.json, rendered to HTML and PDF."""
