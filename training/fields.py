"""The trainer's side of the training option table, src/shared/training-fields.json: every field
becomes a command-line flag with its type, range and default read from the table (the TypeScript
side reads the same file for the request schema, the service's command line and the panel).

    parser = argparse.ArgumentParser()
    fields.add_arguments(parser)
    args = parser.parse_args(argv)
    fields.resolve(parser, args)   # per-method defaults, range checks (exit 2 with the range)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re

FIELDS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src", "shared",
                           "training-fields.json")


def load_fields(path: str = FIELDS_PATH) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["fields"]


def dest(field: dict) -> str:
    """The argparse attribute of a field: its flag without the dashes."""
    return field["flag"].lstrip("-").replace("-", "_")


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser, fields: list[dict] | None = None) -> None:
    """One flag per field. Defaults are filled in by resolve(): a default that depends on the
    method is only known once --method is parsed."""
    for field in fields if fields is not None else load_fields():
        kind = field["type"]
        help_text = field.get("help", "").replace("%", "%%")  # argparse formats help with %
        if kind == "bool":
            parser.add_argument(field["flag"], dest=dest(field), action="store_true",
                                default=bool(field.get("default")), help=help_text)
            continue
        options: dict = {"dest": dest(field), "default": None, "help": help_text}
        if kind == "int":
            options["type"] = int
        elif kind == "number":
            options["type"] = _number
        elif kind == "enum":
            options["choices"] = field["values"]
        elif kind in ("string", "template"):
            options["type"] = str
        else:
            raise ValueError(f"training-fields.json: field {field['name']} has unknown type {kind}")
        parser.add_argument(field["flag"], **options)


# A string field's characters: printable ASCII without spaces (the TypeScript side checks the same).
TEXT_CHARS = re.compile(r"[\x21-\x7e]*")


def text_problem(field: dict, value: str) -> str | None:
    """Why a string field refuses `value` ("must be … characters"), or None."""
    if not TEXT_CHARS.fullmatch(value):
        return "must be printable characters without spaces"
    longest = field.get("max_length", 200)
    if len(value) > longest:
        return f"must be at most {longest} characters"
    return None


def template_problem(field: dict, value: str) -> str | None:
    """Why a template field refuses `value` (at most max_length characters), or None. (NUL, which
    the TypeScript side refuses too, cannot reach a command line.)"""
    longest = field.get("max_length", 200)
    if len(value) > longest:
        return f"must be at most {longest:,} characters"
    return None


def default_for(field: dict, method: str):
    default = field.get("default")
    if isinstance(default, dict):
        return default[method]
    return default


def _shown(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def resolve(parser: argparse.ArgumentParser, args: argparse.Namespace,
            fields: list[dict] | None = None) -> argparse.Namespace:
    """Fills in each unset field's default (per method where the table says so; --method's own
    default first) and checks every set value against the field's range: parser.error (exit 2)
    with `--flag must be between MIN and MAX`."""
    fields = fields if fields is not None else load_fields()
    by_dest = {dest(f): f for f in fields}
    method_field = next((f for f in fields if f["name"] == "method"), None)
    if method_field is not None and getattr(args, dest(method_field), None) is None:
        setattr(args, dest(method_field), method_field["default"])
    method = getattr(args, "method", "lora")
    for name, field in by_dest.items():
        value = getattr(args, name, None)
        if value is None:
            setattr(args, name, default_for(field, method))
            continue
        if field["type"] == "string":
            problem = text_problem(field, value)
            if problem:
                parser.error(f"{field['flag']} {problem}, got {value!r}")
        if field["type"] == "template":
            problem = template_problem(field, value)
            if problem:
                parser.error(f"{field['flag']} {problem}")
        if field["type"] in ("int", "number"):
            low, high = field.get("min"), field.get("max")
            if (low is not None and value < low) or (high is not None and value > high):
                parser.error(f"{field['flag']} must be between {_shown(low)} and {_shown(high)}, "
                             f"got {_shown(value)}")
    return args
