"""Reporting: the stored documents' schema (result_schema.py; results/README.md field by field) and files
(result_files.py), older documents converted on read (old_documents.py), the run's environment, Markdown
tables, the matplotlib charts (charts.py), and stored runs compared across machines (compare.py)."""
