"""The contestant registry: contestants.json, every system compared as data, and registry.py, which validates,
selects and fills its placeholders."""
