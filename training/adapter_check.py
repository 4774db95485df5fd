"""A LoRA run's adapter checked by PEFT before it is offered: the adapter is loaded as a user loads
it (`PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), output_dir)`), run on
the exports' reference prompt (web_export's check prompt through the tokenizer's chat template),
and its logits compared with merged/'s on the same prompt. One model is in memory at a time: the
adapter's logits are taken, that model freed, then merged/ loaded.

    check_adapter(base_model, output_dir, merged_dir) -> report (also written to adapter.check.json)

adapter.check.json: {"ok", "max_logit_difference", "tolerance", "tokens", "seconds",
"peft_version"}, and "reason" when ok is false (the figures that failed, or the error that stopped
the check). The service offers the adapter only when ok is true (src/shared/run-exports.ts); a
run from before this check has no file and is offered as "not checked".

    python training/adapter_check.py BASE OUTPUT_DIR   (writes the report, prints it, exit 0/1)
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time

REPORT = "adapter.check.json"
# The largest |adapter − merged| logit difference accepted, as a share of the logits' own scale
# (max(1, max |logit|)), by the precision merged/ was saved in. The adapter runs in fp32 over the
# base; merged/ holds base + B·A rounded once into its own precision. In fp32 that rounding is at
# the level of float noise, so the bound sits well above it and far below what a changed adapter
# weight makes. In bf16/fp16 each merged weight carries a rounding of its precision's unit
# (2^-8 for bf16), which reaches the logits summed over the layers: the bound leaves room for it
# on the reference shapes while an adapter whose weights differ from the merged ones still lands
# above it (test_adapter_check corrupts one and sees it refused).
TOLERANCE = {"float32": 1e-4, "bfloat16": 0.1, "float16": 0.02}
# Peak anonymous memory of the check ÷ the fp32 weight bytes (the base converted to fp32 with the
# adapter beside it, and the process's libraries), from bench_adapter.py's child, rounded up. The
# safetensors files' mapped pages are page cache, which `available` already counts as free.
MEMORY_PER_FP32_BYTE = 1.2
BYTES_PER = {"float32": 4, "bfloat16": 2, "float16": 2}


def _write(output_dir: str, report: dict) -> None:
    path = os.path.join(output_dir, REPORT)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=1)
    os.replace(path + ".tmp", path)


def _prompt_logits(model, prompt: list[int]):
    import torch

    with torch.no_grad():
        return model(input_ids=torch.tensor([prompt])).logits[0].float().numpy()


def _merged_dtype(merged_dir: str) -> str:
    with open(os.path.join(merged_dir, "config.json"), encoding="utf-8") as handle:
        config = json.load(handle)
    return str(config.get("dtype") or config.get("torch_dtype") or "float32")


def memory_problem(merged_dir: str) -> str | None:
    """Why the check would not fit in the memory available now (both figures), else None: a check
    killed for memory would take the run with it."""
    import psutil  # installed with the trainer (accelerate depends on it)

    weights = sum(os.path.getsize(os.path.join(merged_dir, name)) for name in os.listdir(merged_dir)
                  if name.endswith(".safetensors"))
    need = weights * 4 / BYTES_PER.get(_merged_dtype(merged_dir), 2) * MEMORY_PER_FP32_BYTE
    available = psutil.virtual_memory().available
    if need <= available:
        return None
    return (f"not enough memory to load the base with the adapter in float32: about "
            f"{need / 1e9:.1f} GB needed, {available / 1e9:.1f} GB available")


def compare(base_model: str, output_dir: str, merged_dir: str) -> dict:
    """The figures of the comparison (raises on a model that cannot be loaded or run)."""
    problem = memory_problem(merged_dir)
    if problem:
        raise MemoryError(problem)
    import numpy as np
    import peft
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import web_export

    t0 = time.monotonic()
    prompt = web_export._prompt_ids(AutoTokenizer.from_pretrained(merged_dir))
    # Eager attention for both, as the exports' reference runs: the same definition on each side.
    base = AutoModelForCausalLM.from_pretrained(base_model, dtype=torch.float32,
                                                attn_implementation="eager")
    adapter = peft.PeftModel.from_pretrained(base, output_dir).eval()
    expected = _prompt_logits(adapter, prompt)
    del adapter, base
    gc.collect()
    merged = AutoModelForCausalLM.from_pretrained(merged_dir, dtype=torch.float32,
                                                  attn_implementation="eager").eval()
    got = _prompt_logits(merged, prompt)
    del merged
    gc.collect()
    dtype = _merged_dtype(merged_dir)
    scale = max(1.0, float(np.abs(expected).max()))
    difference = float(np.abs(expected - got).max())
    tolerance = TOLERANCE.get(dtype, TOLERANCE["bfloat16"]) * scale
    report = {"ok": difference <= tolerance, "max_logit_difference": difference,
              "tolerance": tolerance, "merged_dtype": dtype, "tokens": len(prompt),
              "seconds": round(time.monotonic() - t0, 3), "peft_version": peft.__version__}
    if not report["ok"]:
        report["reason"] = (f"the adapter's logits differ from merged/'s by up to {difference:.3g}"
                            f" (tolerance {tolerance:.3g}) on the {len(prompt)}-token reference "
                            "prompt: the adapter files do not hold the weights that were merged")
    return report


def check_adapter(base_model: str, output_dir: str, merged_dir: str) -> dict:
    """The check's report, written to <output_dir>/adapter.check.json; never raises for a check
    that fails or cannot run (the report says why)."""
    t0 = time.monotonic()
    try:
        report = compare(base_model, output_dir, merged_dir)
    except Exception as error:  # noqa: BLE001 - the reason goes into the report
        import importlib.metadata as metadata

        try:
            version = metadata.version("peft")
        except metadata.PackageNotFoundError:
            version = None
        report = {"ok": False, "max_logit_difference": None, "tolerance": None, "tokens": None,
                  "seconds": round(time.monotonic() - t0, 3), "peft_version": version,
                  "reason": f"PEFT could not load or run the adapter ({type(error).__name__}: "
                            f"{' '.join(str(error).split())[:300]})"}
        if isinstance(error, MemoryError):
            report["reason"] = f"the check could not run: {error}"
    _write(output_dir, report)
    return report


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: adapter_check.py BASE_MODEL OUTPUT_DIR", file=sys.stderr)
        return 2
    base, output_dir = argv
    report = check_adapter(base, output_dir, os.path.join(output_dir, "merged"))
    print(json.dumps(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv[1:]))
