"""The schema of the stored result documents and their validation, when a run writes them and whenever one is
read. The schema is JSON Schema (draft 2020-12), one file per document kind and version in results/schema/
(`netbench.writeup-4.schema.json` for a "netbench.writeup/4" document; results/README.md explains every field), so
that any JSON Schema tool, in any language, can check a stored run. Here python3-jsonschema checks it
(schema_validator.py), and every mismatch is reported with the path of the field that differs
(`rows[3].msgs_per_s: expected a number or null`: schema_errors.py), so an old run that no longer fits says where.

    errors = result_schema.validate(document)             # [] when it matches
    document = result_schema.load("results/data/linux-x86_64-2cpu/echo_writeup.json")   # SchemaError if not
    result_schema.check(document)                         # SchemaError naming the first mismatches
"""

import json

from bench.reporting import old_documents
from bench.reporting import schema_errors
from bench.reporting import schema_validator

WRITEUP = "netbench.writeup"
BENCH = "netbench.bench"
CURRENT_VERSION = {WRITEUP: 4, BENCH: 2}
# Documents that tools beside the suite store among the results, each in a schema of its own that the tool
# documents: the suite neither reads nor compares them (results/README.md, "Other tools' documents").
# The stored documents of tools since replaced keep their tags, named with the command that measures it now.
OTHER_TOOLS = {"netbench.soak": "bench/studies/soak.py",
               "netbench.link_compare": "tools/link_compare.py (replaced: --only=websocket --server-host=HOST "
                                        "--compare-loopback over testnet hosts)",
               "netbench.uring_bench": "tools/uring_bench.py (replaced: --only=echo-models,websocket-models)",
               "netbench.uring_client_bench": "tools/uring_client_bench.py (replaced: --only=echo-models)",
               "netbench.variance": "bench/studies/variance_study.py",
               "netbench.dimensioning": "bench/studies/dimensioning_study.py",
               # A run's report as data (report.json): rendered from the documents above, never compared.
               "netbench.report": "bench/reporting/document.py"}
# Version 2 added to every environment: cpus_allowed, git_dirty, build_mode, sysctls; and to the echo and
# websocket detail benches the clients' latency histograms with every bucket, per case (mergeable exactly).
# Write-up version 3 added the placements (settings.placements, each row's placement), each side's
# configuration as it ran, its CPU saturation and the row's bottleneck, and the verdicts' placement and
# "same configuration here".
# Write-up version 4 is every scenario's document, write-up or detail (parts echo-models, websocket-models,
# httpfanout-models): the detail scenarios' rows (`client`, `status`), their cases' merged histograms and their
# comparisons as verdicts; a stored netbench.bench/2 document of a detail scenario is converted on read
# (old_documents.py).


class SchemaError(ValueError):
    """A document that does not match its schema; `errors` lists every mismatch as "path: what"."""

    def __init__(self, source, errors):
        shown = errors[:10] + ([f"... and {len(errors) - 10} more"] if len(errors) > 10 else [])
        super().__init__(f"{source} does not match its schema:\n  " + "\n  ".join(shown))
        self.errors = errors


def file_name(name, version):
    """The schema file of a document kind and version in results/schema/: "netbench.writeup-4.schema.json"."""
    return f"{name}-{version}.schema.json"


def schema_of(document):
    """(name, version) of a document's "schema" field, e.g. ("netbench.writeup", 2); raises SchemaError."""
    tag = document.get("schema") if isinstance(document, dict) else None
    name, _, version = (tag if isinstance(tag, str) else "").partition("/")
    if name not in CURRENT_VERSION or not version.isdigit():
        raise SchemaError("the document", [f"schema: expected one of {', '.join(f'{n}/N' for n in CURRENT_VERSION)}"
                                           f", found {schema_errors.describe(tag)}"])
    if not 1 <= int(version) <= CURRENT_VERSION[name]:
        raise SchemaError("the document", [f"schema: version {version} of {name} is unknown here (this checkout "
                                           f"reads 1 to {CURRENT_VERSION[name]}): update netbench"])
    return name, int(version)


def other_tool(document):
    """The tool that wrote `document` when its schema is one of OTHER_TOOLS' (not the suite's), else None."""
    tag = document.get("schema") if isinstance(document, dict) else None
    return OTHER_TOOLS.get((tag or "").partition("/")[0]) if isinstance(tag, str) else None


def current(name):
    """The tag a new document of `name` carries: "netbench.writeup/4"."""
    return f"{name}/{CURRENT_VERSION[name]}"


def validate(document):
    """Every mismatch of `document` with its schema, as "path: what"; [] when it matches."""
    try:
        name, version = schema_of(document)
    except SchemaError as error:
        return error.errors
    errors = schema_validator.for_file(file_name(name, version)).iter_errors(document)
    return schema_errors.messages(errors, schema_validator.fields_of)


def check(document, source="the document"):
    """Raises SchemaError listing every mismatch; returns the document when it matches."""
    errors = validate(document)
    if errors:
        raise SchemaError(source, errors)
    return document


def load(path):
    """The document stored at `path`, validated; SchemaError (naming the file and each field) if it does not
    match, ValueError if it is not JSON."""
    with open(path) as f:
        try:
            document = json.load(f)
        except ValueError as error:
            raise SchemaError(path, [f"not JSON: {error}"]) from error
    return check(old_documents.upgrade(document), path)


def every_field():
    """The name of every field the schema files describe (results/README.md must document each)."""
    return {name for node in schema_validator.objects(list(schema_validator.schemas().values()))
            for name in node.get("properties", {})}
