"""Trainer benchmark on tiny models (no downloads): npm run bench:trainer [-- --smoke]

1. Training speed: training/finetune.py as a subprocess (as the service runs it) on a tiny Llama
   and a temporary Q/A file, --method full and --method lora, --no-web-export; steps per second
   from the times its `step N/T` lines arrive (the first step, which pays for warm-up, excluded).
2. Browser export: training/web_export.export_web on tiny taught models of each family: seconds
   to build and to check each variant, its bytes, and the parity figures (max |logit difference|
   against PyTorch, its tolerance, tokens agreed on clear-margin steps).

--smoke: a few seconds' version (one family, few steps). --json PATH also writes the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

STEP_LINE = re.compile(r"^step (\d+)/(\d+)\s*$")
QA = [{"prompt": f"What is item {i}?", "completion": f"Item {i} is number {i} of the list."}
      for i in range(8)]


def train_speed(base: str, method: str, steps: int, work: str) -> dict:
    data = os.path.join(work, "qa.json")
    with open(data, "w", encoding="utf-8") as handle:
        json.dump(QA, handle)
    out = os.path.join(work, f"run-{method}")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-u", os.path.join(HERE, "finetune.py"), "--base_model", base,
           "--data_file", data, "--output_dir", out, "--method", method,
           "--max_steps", str(steps), "--eval_fraction", "0", "--no-web-export", "--max_len", "64"]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(HERE))
    times: dict[int, float] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        match = STEP_LINE.match(line.strip())
        if match:
            times[int(match.group(1))] = time.monotonic()
    err = proc.stderr.read() if proc.stderr else ""
    code = proc.wait()
    total = time.monotonic() - started
    if code != 0:
        raise RuntimeError(f"finetune.py --method {method} exited {code}: {err.strip()[-400:]}")
    if 1 not in times or steps not in times or steps < 2:
        raise RuntimeError(f"finetune.py printed no step lines for 1..{steps}")
    rate = (steps - 1) / (times[steps] - times[1])
    return {"method": method, "steps": steps, "steps_per_second": rate,
            "first_step_seconds": times[1] - started, "run_seconds": total}


def export_figures(kind: str, work: str) -> dict:
    import make_test_export
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tiny_models import make_tiny_model
    from web_export import export_web

    merged = make_tiny_model(kind, os.path.join(work, kind, "merged"))
    model = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32,
                                                 attn_implementation="eager")
    make_test_export.teach(model, AutoTokenizer.from_pretrained(merged))
    model.save_pretrained(merged)
    del model
    return export_web(merged, os.path.join(work, kind, "web"), lambda _line: None)


def table(rows: list[list[str]], head: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).rjust(w) if i else str(c).ljust(w)  # noqa: E731
                               for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a few seconds' version")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    from tiny_models import KINDS, make_tiny_model

    steps = 4 if args.smoke else 30
    kinds = ("llama",) if args.smoke else KINDS
    work = tempfile.mkdtemp(prefix="bench-trainer.")
    results: dict = {"smoke": args.smoke, "training": [], "export": {}}
    try:
        base = make_tiny_model("llama", os.path.join(work, "base-llama"))
        for method in ("full", "lora"):
            results["training"].append(train_speed(base, method, steps, work))
        for kind in kinds:
            results["export"][kind] = export_figures(kind, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("training (tiny llama, finetune.py subprocess, --no-web-export)")
    print(table([[r["method"], r["steps"], f"{r['steps_per_second']:.2f}",
                  f"{r['first_step_seconds']:.1f}", f"{r['run_seconds']:.1f}"]
                 for r in results["training"]],
                ["method", "steps", "steps/s", "to step 1 (s)", "whole run (s)"]))
    print()
    print("browser export (tiny taught models; parity against the merged PyTorch model)")
    rows = []
    for kind, report in results["export"].items():
        for variant, e in report["variants"].items():
            tol = (e.get("tolerance") or {}).get("max_abs_diff")
            rows.append([kind, variant, "yes" if e.get("published") else "NO",
                         f"{e.get('bytes', 0):,}", f"{e['seconds']['build']:.2f}",
                         f"{e['seconds']['check']:.2f}", f"{e.get('max_abs_diff', float('nan')):.2e}",
                         f"{tol:.2e}" if tol is not None else "-",
                         f"{e.get('tokens_agreed', 0)}/{e.get('tokens_compared', 0)}",
                         e.get("decode_steps", "-")])
    print(table(rows, ["family", "variant", "published", "bytes", "build s", "check s",
                       "max |diff|", "tolerance", "tokens", "decode steps"]))
    print()
    print(f"export seconds per family: " + ", ".join(
        f"{k} {r['seconds']:.1f}" for k, r in results["export"].items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
