"""The schema of the stored result documents and their validation, when a run writes them and whenever one is
read. The schema is JSON Schema (draft 2020-12), one file per document kind and version in results/schema/
(`netbench.writeup-4.schema.json` for a "netbench.writeup/4" document; results/README.md explains every field), so
that any JSON Schema tool, in any language, can check a stored run. Here python3-jsonschema checks it, and every
mismatch is reported with the path of the field that differs (`rows[3].msgs_per_s: expected a number or null`),
so an old run that no longer fits says where.

    errors = result_schema.validate(document)             # [] when it matches
    document = result_schema.load("results/data/linux-x86_64-2cpu/echo_writeup.json")   # SchemaError if not
    result_schema.check(document)                         # SchemaError naming the first mismatches
"""

import functools
import json
import os
import pathlib

import jsonschema

from bench.reporting import old_documents
from bench.reporting import schema_errors

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


FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "schema")


class SchemaError(ValueError):
    """A document that does not match its schema; `errors` lists every mismatch as "path: what"."""

    def __init__(self, source, errors):
        shown = errors[:10] + ([f"... and {len(errors) - 10} more"] if len(errors) > 10 else [])
        super().__init__(f"{source} does not match its schema:\n  " + "\n  ".join(shown))
        self.errors = errors


def file_name(name, version):
    """The schema file of a document kind and version: "netbench.writeup-4.schema.json"."""
    return f"{name}-{version}.schema.json"


def _uri(name):
    return pathlib.Path(FOLDER, name).resolve().as_uri()


@functools.lru_cache(maxsize=None)
def schemas():
    """Every schema file of results/schema/ by its URI, as stored (their references to each other are relative)."""
    found = {}
    for name in sorted(os.listdir(FOLDER)):
        if name.endswith(".schema.json"):
            with open(os.path.join(FOLDER, name)) as f:
                found[_uri(name)] = json.load(f)
    return found


# The keywords an object closed with unevaluatedProperties may have here: its fields are those it and its parts
# (allOf, each a reference to a definition of the same file) name in `properties`.
CLOSED_KEYWORDS = {"title", "description", "type", "allOf", "properties", "required", "unevaluatedProperties"}


def _closed_fields(store):
    """{id(object schema): the fields it names} for each object closed with unevaluatedProperties."""
    closed = {}

    def walk(node, defs):
        if isinstance(node, dict):
            if node.get("unevaluatedProperties") is False:
                assert set(node) <= CLOSED_KEYWORDS, f"{node.get('title')}: {set(node) - CLOSED_KEYWORDS}"
                parts = [defs[part["$ref"].partition("#/$defs/")[2]] for part in node.get("allOf", [])]
                closed[id(node)] = {name for part in [node, *parts] for name in part.get("properties", {})}
            for value in node.values():
                walk(value, defs)
        elif isinstance(node, list):
            for value in node:
                walk(value, defs)

    for schema in store.values():
        walk(schema, schema.get("$defs", {}))
    return closed


@functools.lru_cache(maxsize=None)
def _store():
    """The schemas as the validator reads them, and the fields of each closed object. Without "$schema": the
    dialect is _VALIDATOR's, where one met through a reference to another file would switch to jsonschema's own
    class and its integers."""
    store = {uri: {k: v for k, v in schema.items() if k != "$schema"} for uri, schema in schemas().items()}
    return store, _closed_fields(store)


def fields_of(schema):
    """Every field an object schema names: its own, and its parts' where it is closed with unevaluatedProperties."""
    return _store()[1].get(id(schema)) or set(schema.get("properties", {}))


def _unevaluated_properties(validator, closed, instance, schema):
    """The keyword `unevaluatedProperties: false` of an object made of parts (a row): a field no part names is
    refused. jsonschema's own evaluates every part again to find them (two thirds of a document's validation)
    and counts the fields of a part that failed as unevaluated too, beside their own errors."""
    if closed is False and isinstance(instance, dict):
        extra = [name for name in instance if name not in fields_of(schema)]
        if extra:
            yield jsonschema.ValidationError(f"{', '.join(map(repr, extra))}: not a field of the object")


# JSON's types as json.load gives them. An integer is an int: JSON Schema counts 1.0 as one, the suite's readers
# do not (a round, a count, an index). jsonschema's own keyword asks its type checker, a quarter of the time.
JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
              "array": list, "object": dict}


def _type(validator, types, instance, schema):
    kinds = [types] if isinstance(types, str) else types
    if not any(isinstance(instance, JSON_TYPES[kind]) and (kind == "boolean" or not isinstance(instance, bool))
               for kind in kinds):
        yield jsonschema.ValidationError(f"{instance!r} is not of type {', '.join(map(repr, kinds))}")


_VALIDATOR = jsonschema.validators.extend(jsonschema.Draft202012Validator, validators={
    "type": _type, "unevaluatedProperties": _unevaluated_properties})


@functools.lru_cache(maxsize=None)
def _validator(name, version):
    store = _store()[0]
    uri = _uri(file_name(name, version))
    return _VALIDATOR(store[uri], resolver=jsonschema.RefResolver(uri, store[uri], store=store))


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
    return schema_errors.messages(_validator(name, version).iter_errors(document), fields_of)


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
    names = set()

    def walk(node):
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(list(schemas().values()))
    return names
