"""Reporting: the stored documents' schema (result_schema.py; results/README.md field by field) and files
(result_files.py), the run's environment, Markdown tables, the matplotlib charts (charts.py), a detail
scenario's report (bench_report.py), and stored runs compared across machines (compare.py)."""
