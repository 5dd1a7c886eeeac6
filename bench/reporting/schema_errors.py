"""python3-jsonschema's errors in the words results/README.md quotes: each "path: what", the path in the form
`rows[3].msgs_per_s` (the whole document is `document`), the object named by its schema's `title`.

    messages(validator.iter_errors(document), fields_of)
    # ['rows[3].msgs_per_s: expected a number or null, found "fast"', 'rows[1].round: missing (a field of a row)']

`fields_of(object schema)` names the fields of an object closed with `additionalProperties` or
`unevaluatedProperties` (its parts' too), so that each field it does not name is reported by its own path.
"""

import json

TYPE_WORDS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
              "null": "null", "array": "a list", "object": "an object"}


def path_of(parts):
    """`rows[3].msgs_per_s` for the path ("rows", 3, "msgs_per_s"); "" for the document itself."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def describe(value):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _one_of(values):
    return "one of " + ", ".join(repr(v) if isinstance(v, str) else json.dumps(v) for v in values)


def expectation(schema):
    """What a schema of one type, set of values or pattern expects, in words."""
    if "enum" in schema:
        return _one_of(schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if "pattern" in schema:
        return f"a string matching {schema['pattern']}"
    if "anyOf" in schema:
        return " or ".join(expectation(branch) for branch in schema["anyOf"])
    kinds = schema.get("type", [])
    return " or ".join(TYPE_WORDS[t] for t in ([kinds] if isinstance(kinds, str) else kinds)) or "a valid value"


def _fields(error, fields_of):
    """Each field the error is about: (name, what) for a missing or an unknown one."""
    title = error.schema.get("title", "its object")
    if error.validator == "required":
        return [(name, f"missing (a field of {title})") for name in error.validator_value
                if name not in error.instance]
    known = fields_of(error.schema)
    return [(name, f"not a field of {title} (results/README.md lists them)") for name in error.instance
            if name not in known]


def _say(error, fields_of):
    path = path_of(error.absolute_path)
    if error.validator in ("required", "additionalProperties", "unevaluatedProperties"):
        prefix = f"{path}." if path else ""
        return [f"{prefix}{name}: {what}" for name, what in _fields(error, fields_of)]
    where, found = path or "document", describe(error.instance)
    if error.validator in ("type", "enum", "const", "pattern", "anyOf"):
        return [f"{where}: expected {expectation({error.validator: error.validator_value})}, found {found}"]
    if error.validator in ("minItems", "maxItems"):
        return [f"{where}: expected {error.schema.get('title', 'another length')}, found {found}"]
    return [f"{where}: {error.message}"]


def messages(errors, fields_of):
    """Every error as "path: what", by path (a list's items by index), each once."""
    ordered = sorted(errors, key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path])
    return list(dict.fromkeys(line for error in ordered for line in _say(error, fields_of)))
