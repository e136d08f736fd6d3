"""A small JSON Schema validator for the reports' own schemas (report.schema.json for
`shrules check`, mutation.schema.json for `shrules mutate`).

A report is checked against its published schema before it is written, so a field
added to the code but not to the schema (or the other way round) fails at once. The
keywords implemented are exactly those the schemas use — type, const, enum,
properties, required, additionalProperties, items, minimum, minLength, pattern and local
$ref — which keeps the project free of a dependency for 100 lines of checking; any other
keyword in the schema is refused rather than silently ignored. Tools that want full JSON
Schema can use the same file with any draft 2020-12 validator.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).parent / "report.schema.json"
MUTATION_SCHEMA_FILE = Path(__file__).parent / "mutation.schema.json"
KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "const", "enum", "properties",
         "required", "additionalProperties", "items", "minimum", "minLength", "pattern"}
TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaViolation(ValueError):
    """A document that does not match its schema: the JSON path and what is wrong."""


@lru_cache(maxsize=None)
def _schema(path: Path) -> dict[str, Any]:
    """A published schema, read once: every report written validates against it."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def report_schema() -> dict[str, Any]:
    """The published schema of report.json."""
    return _schema(SCHEMA_FILE)


def mutation_schema() -> dict[str, Any]:
    """The published schema of mutation.json (and of `shrules mutate --json`)."""
    return _schema(MUTATION_SCHEMA_FILE)


def validate(document: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, path: str = "$") -> None:
    """Raise `SchemaViolation` at the first place `document` breaks `schema`."""
    root = schema if root is None else root
    unknown = set(schema) - KNOWN
    if unknown:
        raise SchemaViolation(f"{path}: the schema uses {sorted(unknown)}, which this validator does not know")
    if "$ref" in schema:
        reference = schema["$ref"]
        if not reference.startswith("#/$defs/"):
            raise SchemaViolation(f"{path}: only local references #/$defs/... are supported, got {reference}")
        validate(document, root["$defs"][reference.removeprefix("#/$defs/")], root, path)
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[name](document) for name in allowed):
            raise SchemaViolation(f"{path}: expected {' or '.join(allowed)}, got {json.dumps(document)[:60]}")
    if "const" in schema and (document != schema["const"] or type(document) is not type(schema["const"])):
        raise SchemaViolation(f"{path}: expected {json.dumps(schema['const'])}, got {json.dumps(document)[:60]}")
    if "enum" in schema and not any(document == v and type(document) is type(v) for v in schema["enum"]):
        raise SchemaViolation(f"{path}: expected one of {json.dumps(schema['enum'])}, got {json.dumps(document)[:60]}")
    if isinstance(document, dict):
        for key in schema.get("required", []):
            if key not in document:
                raise SchemaViolation(f"{path}: the key '{key}' is missing")
        properties = schema.get("properties", {})
        for key, value in document.items():
            if key in properties:
                validate(value, properties[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                raise SchemaViolation(f"{path}: the key '{key}' is not in the schema")
    if isinstance(document, list) and "items" in schema:
        for index, item in enumerate(document):
            validate(item, schema["items"], root, f"{path}[{index}]")
    number = TYPES["number"](document)
    if "minimum" in schema and number and document < schema["minimum"]:
        raise SchemaViolation(f"{path}: {document} is below the minimum {schema['minimum']}")
    if isinstance(document, str):
        if len(document) < schema.get("minLength", 0):
            raise SchemaViolation(f"{path}: the string is shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], document):
            raise SchemaViolation(f"{path}: {document!r} does not match {schema['pattern']}")


def validate_report(document: Any) -> None:
    """Raise `SchemaViolation` unless `document` is a valid report.json."""
    validate(document, report_schema())


def validate_mutation(document: Any) -> None:
    """Raise `SchemaViolation` unless `document` is a valid mutation.json."""
    validate(document, mutation_schema())
