"""The result documents' JSON Schema files (results/schema/) as python3-jsonschema validates with them: draft
2020-12, the files referring to each other by relative references, and two keywords of the suite's own.

    validator = schema_validator.for_file("netbench.writeup-4.schema.json")
    errors = validator.iter_errors(document)       # jsonschema's ValidationErrors
    schema_validator.fields_of(error.schema)       # the fields a closed object names, its parts' included

The two keywords, each the standard one's meaning for the files as written here:
- `type`: an integer is a Python int, where JSON Schema counts 1.0 as one (the suite's readers index and count
  with them); and it asks no type checker, which took a quarter of a document's validation.
- `unevaluatedProperties: false` on an object made of parts with `allOf` (a row): a field that no part names is
  refused, read from the parts' `properties` once, where jsonschema evaluates every part again for each object
  (two thirds of a document's validation) and also counts the fields of a part that failed, beside their own
  errors.
"""

import functools
import json
import os
import pathlib

import jsonschema

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "schema")
# What an object closed with unevaluatedProperties may say here: its parts are allOf's references to definitions
# of its own file, so that its fields are those its and its parts' `properties` name.
CLOSED_KEYWORDS = {"title", "description", "type", "allOf", "properties", "required", "unevaluatedProperties"}
JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
              "array": list, "object": dict}


def _uri(name):
    return pathlib.Path(FOLDER, name).resolve().as_uri()


def objects(node):
    """Every JSON object within `node` (a schema, a list of them), `node` itself included."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


@functools.lru_cache(maxsize=None)
def schemas():
    """{file name: schema} of every file of results/schema/, as stored."""
    found = {}
    for name in sorted(os.listdir(FOLDER)):
        if name.endswith(".schema.json"):
            with open(os.path.join(FOLDER, name)) as f:
                found[name] = json.load(f)
    return found


def _closed_fields(schema):
    """{id(object): the fields it names} for each object of `schema` closed with unevaluatedProperties."""
    closed = {}
    for node in objects(schema):
        if node.get("unevaluatedProperties") is False:
            if not set(node) <= CLOSED_KEYWORDS:
                raise ValueError(f"{node.get('title')}: {sorted(set(node) - CLOSED_KEYWORDS)} (results/schema/ "
                                 "closes an object of parts with unevaluatedProperties; bench/reporting/"
                                 "schema_validator.py reads its fields from their properties alone)")
            parts = [schema["$defs"][part["$ref"].partition("#/$defs/")[2]] for part in node.get("allOf", [])]
            closed[id(node)] = {name for part in [node, *parts] for name in part.get("properties", {})}
    return closed


@functools.lru_cache(maxsize=None)
def _store():
    """{URI: schema} as the validator reads them, and the fields of each closed object. Without "$schema": the
    dialect is the validator's, where one met through a reference to another file would switch to jsonschema's
    own class (and its integers)."""
    store = {_uri(name): {k: v for k, v in schema.items() if k != "$schema"} for name, schema in schemas().items()}
    closed = {}
    for schema in store.values():
        closed.update(_closed_fields(schema))
    return store, closed


def fields_of(schema):
    """Every field an object schema names: its own, and its parts' where it is closed with unevaluatedProperties."""
    return _store()[1].get(id(schema)) or set(schema.get("properties", {}))


def _type(validator, types, instance, schema):
    kinds = [types] if isinstance(types, str) else types
    if not any(isinstance(instance, JSON_TYPES[kind]) and (kind == "boolean" or not isinstance(instance, bool))
               for kind in kinds):
        yield jsonschema.ValidationError(f"{instance!r} is not of type {', '.join(map(repr, kinds))}")


def _unevaluated_properties(validator, closed, instance, schema):
    if closed is False and isinstance(instance, dict):
        extra = [name for name in instance if name not in fields_of(schema)]
        if extra:
            yield jsonschema.ValidationError(f"{', '.join(map(repr, extra))}: no part of the object names it")


VALIDATOR = jsonschema.validators.extend(jsonschema.Draft202012Validator, validators={
    "type": _type, "unevaluatedProperties": _unevaluated_properties})


@functools.lru_cache(maxsize=None)
def for_file(name):
    """The validator of the schema file `name` (results/schema/), its references to the other files resolved."""
    store = _store()[0]
    uri = _uri(name)
    return VALIDATOR(store[uri], resolver=jsonschema.RefResolver(uri, store[uri], store=store))
