"""What the exports (web_export, onnx_fused, gguf_export) read from a Hugging Face model folder
before they write anything: its JSON files, and whether a writer that reads the float weights of
some model types can read this one. Standard library only, imported by each of them (it imports
none of them)."""
from __future__ import annotations

import json
import os
from typing import Callable


def read_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def folder_json(folder: str, name: str, skipped: type[Exception], why: str) -> dict:
    """folder/name parsed; `skipped("<folder> has no <name>, <why>")` when the folder lacks it."""
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise skipped(f"{folder} has no {name}, {why}")
    return read_json(path)


def checked_config(folder: str, problem_of: Callable[[dict], str | None],
                   refused: type[Exception],
                   missing: str = "so it is not a Hugging Face model folder") -> dict:
    """folder's config.json once `problem_of` finds nothing against it; else `refused` with the
    problem (or with `missing` when there is no config.json)."""
    config = folder_json(folder, "config.json", refused, missing)
    problem = problem_of(config)
    if problem:
        raise refused(problem)
    return config


def weights_problem(config: dict, model_types: tuple[str, ...] | dict, writer: str) -> str | None:
    """None when `writer`, which reads the float weights of `model_types`, can start on this
    config.json's model; else why not (another model type, or a checkpoint already quantized)."""
    model_type = config.get("model_type")
    if model_type not in model_types:
        return (f"the {writer} handles model types {', '.join(model_types)}, and this one is "
                f"{model_type!r}")
    if config.get("quantization_config"):
        return f"the checkpoint is already quantized, and the {writer} reads float weights"
    return None
