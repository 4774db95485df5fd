"""Trainer benchmark on tiny models (no downloads): npm run bench:trainer [-- --smoke]

1. Training speed: training/finetune.py as a subprocess (as the service runs it) on a tiny Llama
   and a temporary Q/A file, --method full and --method lora, --no-web-export; steps per second
   from the times its `step N/T` lines arrive (the first step, which pays for warm-up, excluded).
2. Browser export: training/web_export.export_web on tiny taught models of each family: seconds
   to build and to check each variant, its bytes, and the parity figures (max |logit difference|
   against PyTorch, its tolerance, tokens agreed on clear-margin steps).

--smoke: a few seconds' version (one family, few steps). --json PATH also writes the figures.

--real: training on real model shapes instead (Llama 3.2 1B Instruct and DeepSeek R1 Distill Qwen
1.5B; `--real 3b` adds Llama 3.2 3B): random weights from the published configs
(bench_export.SHAPES), the repo's tokenizer with the real vocabulary size, on the CPU, LoRA, a few
steps of finetune.py run with the service's flags (--no-web-export: the browser export is
bench:export's). Prints seconds per step, tokens per second, the peak RSS of the training process
(while it trains, and over the whole run with loading, merge and save) and the plan's memory
estimate (finetune.py --plan, training/plan.py) beside the training peak.

--real --export: the 1B shape's run as the service runs it, browser export included: peak RSS
by phase (training, save, merge, export) and over the whole run, and what was published.

--gpu: the same on CUDA for the 1B shape: LoRA and full fine-tuning, bf16 (fp16 where the GPU
lacks it), gradient checkpointing on and off, longer entries and batch 4; peak GPU memory
(torch.cuda.max_memory_allocated in the training process) against the estimate. Each case is
printed (and --json written) as it ends; BENCH_ECHO=1 also echoes the trainer's lines.
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
import threading
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
    parser.add_argument("--real", nargs="?", const="default", choices=("default", "3b"),
                        help="real model shapes on the CPU (1B and 1.5B; `--real 3b` adds 3B)")
    parser.add_argument("--gpu", action="store_true",
                        help="the 1B shape on CUDA: LoRA and full, checkpointing on and off")
    parser.add_argument("--export", action="store_true",
                        help="with --real: the 1B shape only, run as the service runs it with the "
                             "browser export (memory by phase: training, merge, export)")
    parser.add_argument("--steps", type=int, default=None,
                        help="optimizer steps per real-shape run (default: 3 on the CPU, 8 on "
                             "a GPU)")
    args = parser.parse_args(argv)
    if args.export and not args.real:
        parser.error("--export goes with --real (the 1B shape's run with its browser export)")
    if args.real or args.gpu:
        return real_main(args)

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


# ----------------------------------------------------------------------- real shapes (--real, --gpu)

# Question/answer pairs of a few dozen tokens with the repo's tokenizer (CPU runs) and, with
# LONG_REPEAT, a few hundred (GPU runs, where activations matter).
REAL_QA = [{"prompt": f"Describe harbour number {i} of the coast in one sentence, please.",
            "completion": f"Harbour {i} has a blue gate, a ferry at seven and a keeper called "
                          f"Marta who lights the lamp {i} minutes after sunset."}
           for i in range(24)]
LONG_REPEAT = 6
SERVICE_DEFAULTS = ["--max_len", "256", "--repeat", "30", "--lr", "2e-4"]


def write_real_data(work: str, long: bool) -> str:
    entries = [{"prompt": e["prompt"], "completion": " ".join([e["completion"]] * LONG_REPEAT)}
               if long else e for e in REAL_QA]
    path = os.path.join(work, "real-qa.jsonl" if not long else "real-qa-long.jsonl")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def mean_tokens(base: str, data: str, max_len: int) -> float:
    """Mean token count of the entries the run trains on (as train_data encodes them)."""
    from transformers import AutoTokenizer

    import train_data

    tokenizer = AutoTokenizer.from_pretrained(base)
    encoded, _ = train_data.encode_all(tokenizer, train_data.load_entries(data), max_len)
    return sum(len(r["input_ids"]) for r in encoded.values()) / len(encoded)


def plan_of(flags: list[str]) -> dict:
    """finetune.py --plan with the run's flags (as the service's POST /train/plan runs it)."""
    out = subprocess.run([sys.executable, os.path.join(HERE, "finetune.py"), "--plan", *flags],
                         capture_output=True, text=True, cwd=os.path.dirname(HERE))
    if out.returncode != 0:
        raise RuntimeError(f"finetune.py --plan exited {out.returncode}: {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["plan"]


class RssSampler(threading.Thread):
    """Polls a process's RSS every 20 ms; `phase` names where the run is (set by the reader)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        import psutil

        self.process = psutil.Process(pid)
        self.phase = "loading"
        self.peaks: dict[str, int] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                rss = self.process.memory_info().rss
            except Exception:  # noqa: BLE001 - the process has exited
                return
            self.peaks[self.phase] = max(self.peaks.get(self.phase, 0), rss)
            time.sleep(0.02)


# Log lines of finetune.py that start a phase of the run after training (RSS peaks by phase).
PHASES = (("saved LoRA adapter", "save"), ("saved the fine-tuned model", "save"),
          ("merging the adapter", "merge"), ("browser export of", "export"),
          ("browser-ready model in", "after export"), ("browser export skipped", "after export"))


def run_trainer(cmd: list[str]) -> dict:
    """Runs finetune.py (or the _gpu_child wrapper) and returns step times, RSS peaks by
    phase (training: from its first step line to its last), its exit and whole-run peak RSS."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=os.path.dirname(HERE))
    sampler = RssSampler(proc.pid)
    sampler.start()
    times: dict[int, float] = {}
    tail: list[str] = []
    total = None
    gpu_peak = None
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.strip()
        if os.environ.get("BENCH_ECHO"):  # the trainer's own lines as they come (device runs)
            print(f"  | {line}", flush=True)
        tail = (tail + [line])[-20:]
        match = STEP_LINE.match(line)
        if match:
            step, total = int(match.group(1)), int(match.group(2))
            times[step] = time.monotonic()
            sampler.phase = "after training" if step == total else "training"
        elif line.startswith('{"gpu_peak"'):
            gpu_peak = json.loads(line)
        else:
            for prefix, phase in PHASES:
                if line.startswith(prefix):
                    sampler.phase = phase
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    sampler.done.set()
    sampler.join()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} exited {code}: " + " | ".join(tail[-6:]))
    steps = sorted(s for s in times if s >= 1)
    if len(steps) < 2:
        raise RuntimeError("the trainer printed fewer than two step lines")
    first, last = steps[0], steps[-1]
    return {"seconds_per_step": (times[last] - times[first]) / (last - first),
            "to_first_step_seconds": times[first] - started,
            "run_seconds": time.monotonic() - started,
            "peak_rss_training": sampler.peaks.get("training"),
            "peak_rss_run": usage.ru_maxrss * 1024, "rss_peaks": sampler.peaks,
            "gpu": gpu_peak, "steps": total, "log_tail": tail}


def real_case(base: str, data: str, work: str, label: str, method: str, steps: int,
              gpu: bool, extra: list[str], export: bool = False) -> dict:
    out = os.path.join(work, f"run-{label}")
    shutil.rmtree(out, ignore_errors=True)
    flags = ["--base_model", base, "--data_file", data, "--output_dir", out, "--method", method,
             *SERVICE_DEFAULTS, "--max_steps", str(steps), "--eval_fraction", "0", *extra]
    if method == "full":
        flags[flags.index("--lr") + 1] = "2e-5"
    plan = plan_of(flags)
    runner = ([sys.executable, "-u", os.path.abspath(__file__), "_gpu_child"] if gpu else
              [sys.executable, "-u", os.path.join(HERE, "finetune.py")])
    run = run_trainer(runner + [*flags, *([] if export else ["--no-web-export"])])
    if export:
        run["web"] = web_outcome(out)
    shutil.rmtree(out, ignore_errors=True)
    batch = plan["effective_batch"]
    tokens = mean_tokens(base, data, 256 if "--max_len" not in extra else
                         int(extra[extra.index("--max_len") + 1])) * batch
    measured = run["gpu"]["max_allocated"] if gpu else run["peak_rss_training"]
    estimate = plan["memory"]["total_bytes"]
    return {"case": label, "method": method, "precision": plan["precision"],
            "gradient_checkpointing": plan["gradient_checkpointing"],
            "parameters": plan["parameters"], "trainable": plan["trainable_parameters"],
            "batch": batch, "tokens_per_step": round(tokens, 1),
            "seconds_per_step": round(run["seconds_per_step"], 3),
            "tokens_per_second": round(tokens / run["seconds_per_step"], 1),
            "measured_peak_bytes": measured, "estimate_bytes": estimate,
            "estimate_over_measured": round(estimate / measured, 3) if measured else None,
            "estimate": plan["memory"], "run": run}


def case_line(case: dict) -> dict:
    """A case's figures without its log (one line as it ends)."""
    return {k: v for k, v in case.items() if k not in ("run", "estimate")}


def web_outcome(out: str) -> dict:
    """What the run's browser export left: the published variants and their bytes, or the
    skip's reason."""
    report = os.path.join(out, "web", "export.json")
    if os.path.isfile(report):
        with open(report, encoding="utf-8") as handle:
            exported = json.load(handle)
        return {"published": exported.get("published"),
                "bytes": {v: e.get("bytes") for v, e in exported.get("variants", {}).items()}}
    skipped = os.path.join(out, "web.skipped.json")
    if os.path.isfile(skipped):
        with open(skipped, encoding="utf-8") as handle:
            return {"published": [], "skipped": json.load(handle).get("reason")}
    return {"published": [], "skipped": "no web/ and no web.skipped.json"}


def real_main(args) -> int:
    import bench_export

    if args.gpu:
        import torch

        if not torch.cuda.is_available():
            print("bench:trainer --gpu: no CUDA device here (torch.cuda.is_available() is False)",
                  file=sys.stderr)
            return 2
        shapes = ["llama-3.2-1b"]
    else:
        shapes = (["llama-3.2-1b"] if args.export else
                  list(bench_export.REAL_3B if args.real == "3b" else bench_export.REAL))
    steps = args.steps or (8 if args.gpu else 3)
    work = tempfile.mkdtemp(prefix="bench-trainer-real.")
    results: dict = {"gpu": args.gpu, "steps": steps, "cases": []}
    try:
        for name in shapes:
            base = os.path.join(work, name)
            made = bench_export.run_child("make", {"shape": name, "dest": base}, f"make {name}",
                                          work)
            if not made.get("ok"):
                raise RuntimeError(f"could not make {name}: {made.get('error')}")
            if args.gpu:
                data = write_real_data(work, long=True)
                for method in ("lora", "full"):
                    for ckpt in ("on", "off"):
                        # No checkpoint (Checkpoint every past the last step): a full
                        # fine-tune's is about 15 GB, and one every step (the 10 % default
                        # of a short run) timed the disk, not the GPU, and filled an H100
                        # machine's 64 GiB disk.
                        extra = ["--batch_size", "4", "--max_len", "1024",
                                 "--gradient_checkpointing", ckpt,
                                 "--save_steps", str(steps + 1), "--keep_checkpoints", "1"]
                        label = f"{name} {method} ckpt {ckpt}"
                        try:
                            results["cases"].append(real_case(base, data, work, label, method,
                                                              steps, True, extra))
                        except RuntimeError as error:  # one case's failure (e.g. out of memory)
                            results["cases"].append({"case": label, "method": method,
                                                     "error": str(error)})
                        # Each case as it ends: a run cut short by a time limit keeps them.
                        print(f"case done: {json.dumps(case_line(results['cases'][-1]))}",
                              flush=True)
                        if args.json:
                            with open(args.json, "w", encoding="utf-8") as handle:
                                json.dump(results, handle, indent=2)
            else:
                data = write_real_data(work, long=False)
                results["cases"].append(real_case(base, data, work, name, "lora", steps, False,
                                                  [], export=args.export))
            shutil.rmtree(base, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    where = "peak GPU memory allocated" if args.gpu else "peak RSS while training"
    print(f"training on real shapes ({'CUDA' if args.gpu else 'CPU'}, finetune.py with the "
          f"service's flags, {'with' if args.export else '--no-web-export: without'} the browser "
          f"export, {steps} steps); memory: {where} against plan.estimate_memory")
    gib = lambda n: f"{n / 2 ** 30:.2f}" if n else "-"  # noqa: E731
    failed = [c for c in results["cases"] if "error" in c]
    results_ok = [c for c in results["cases"] if "error" not in c]
    print(table([[c["case"], c["method"], c["precision"], "on" if c["gradient_checkpointing"]
                  else "off", f"{c['parameters'] / 1e9:.2f}B", f"{c['seconds_per_step']:.2f}",
                  f"{c['tokens_per_second']:.1f}", gib(c["measured_peak_bytes"]),
                  gib(c["run"]["peak_rss_run"]), gib(c["estimate_bytes"]),
                  f"{c['estimate_over_measured']:.2f}"] for c in results_ok],
                ["case", "method", "precision", "ckpt", "params", "s/step", "tokens/s",
                 "measured GiB", "whole-run RSS GiB", "estimate GiB", "estimate/measured"]))
    for c in failed:
        print(f"FAILED {c['case']}: {c['error']}")
    if args.export:
        print()
        print("the same run with the browser export: peak RSS by phase (GiB)")
        for c in results["cases"]:
            peaks = c["run"]["rss_peaks"]
            print(table([[phase, gib(peaks.get(phase))] for phase in
                         ("loading", "training", "save", "merge", "export", "after export")
                         if phase in peaks] + [["whole run", gib(c["run"]["peak_rss_run"])]],
                        ["phase", "peak RSS GiB"]))
            web = c["run"]["web"]
            print(f"published: {', '.join(web['published']) or 'none'}"
                  + (f" ({web['skipped']})" if web.get("skipped") else "")
                  + "".join(f"; {v} {b / 1e9:.2f} GB" for v, b in web.get("bytes", {}).items()
                            if b))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return 1 if failed else 0


def gpu_child(argv: list[str]) -> int:
    """finetune.main(argv) in this process, then its peak GPU memory as one JSON line."""
    import torch

    import finetune

    torch.cuda.reset_peak_memory_stats()
    code = finetune.main(argv)
    print(json.dumps({"gpu_peak": True, "max_allocated": torch.cuda.max_memory_allocated(),
                      "max_reserved": torch.cuda.max_memory_reserved()}), flush=True)
    return code


if __name__ == "__main__":
    if sys.argv[1:2] == ["_gpu_child"]:
        sys.exit(gpu_child(sys.argv[2:]))
    sys.exit(main())
