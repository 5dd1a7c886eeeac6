"""Reporting: a run as one document (document.py) and one renderer per format: markdown.py (REPORT.md),
html_report.py (report.html, one self-contained page), terminal.py (the summary that ends a run), with
verdict_text.py saying how a verdict's numbers read in all three; the stored documents' schema (results/schema/'s
JSON Schema files, validated by result_schema.py, its errors in schema_errors.py's words; results/README.md field by
field), older documents converted on read (old_documents.py) and
files (result_files.py: a folder per run), the run's environment, the matplotlib charts (charts.py), and stored
runs compared across machines (compare.py)."""
