#!/usr/bin/env python3
"""What the trainer's Python environment holds, as one JSON object on stdout (the service's
GET /trainer runs it with the trainer's interpreter):

    {"python": "/…/.venv/bin/python", "python_version": "3.11.7",
     "packages": {"torch": "2.13.0", "transformers": "5.18.0", "peft": "0.21.0",
                  "accelerate": "1.15.0", "onnx": "1.23.1", "onnxruntime": "1.30.0"},
     "device": {"kind": "cuda", "gpus": [{"name": "NVIDIA H100 80GB HBM3",
                                          "memory_bytes": 85045379072}]}}

Versions come from the installed distributions' metadata (no import); the device only when torch
imports. It never fails: anything it cannot find is null (a package not installed, "device": null
without torch), and it always exits 0.
"""
from __future__ import annotations

import json
import platform
import sys

PACKAGES = ("torch", "transformers", "peft", "accelerate", "onnx", "onnxruntime", "onnx-ir")


def package_version(name: str) -> str | None:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return None
    try:
        # Local build tags (2.13.0+cpu, +cu128) name the build, not the version.
        return version(name).split("+", 1)[0]
    except PackageNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - broken metadata is "unknown", never a failure
        return None


def device_info(torch_installed: bool) -> dict | None:
    if not torch_installed:
        return None
    try:
        import torch
    except Exception:  # noqa: BLE001 - a torch that does not import is no device
        return None
    try:
        if torch.cuda.is_available():
            gpus = []
            for index in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(index)
                gpus.append({"name": props.name, "memory_bytes": int(props.total_memory)})
            return {"kind": "cuda", "gpus": gpus}
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            memory = None
            try:  # what Metal lets this process use (torch >= 2.3)
                memory = int(torch.mps.recommended_max_memory())
            except Exception:  # noqa: BLE001
                pass
            return {"kind": "mps", "gpus": [{"name": "Apple GPU (MPS)", "memory_bytes": memory}]}
    except Exception:  # noqa: BLE001 - a broken driver still leaves the CPU
        pass
    return {"kind": "cpu", "gpus": []}


def trainer_info() -> dict:
    packages = {name: package_version(name) for name in PACKAGES}
    return {"python": sys.executable or None, "python_version": platform.python_version(),
            "packages": packages, "device": device_info(packages["torch"] is not None)}


def main() -> int:
    try:
        info = trainer_info()
    except Exception:  # noqa: BLE001 - the promise is one JSON object, whatever happens
        info = {"python": sys.executable or None, "python_version": platform.python_version(),
                "packages": {name: None for name in PACKAGES}, "device": None}
    print(json.dumps(info), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
