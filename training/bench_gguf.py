"""GGUF export benchmark on real model shapes, random weights, no download (bench_export.py --gguf):

    npm run bench:export -- --gguf            Llama 3.2 1B Instruct and DeepSeek-R1-Distill-Qwen-1.5B
    npm run bench:export -- --gguf --models llama-3.2-1b
    npm run bench:export -- --gguf --smoke    every step on a tiny shape (the figures mean nothing)

Why: writing and loading a GGUF costs what the shapes make it cost (the bytes, the tensors, the
vocabulary), not what the weights have learned, so random weights at the real shapes (the
published config.json figures in bench_export.SHAPES, the repo's tiny tokenizer with the real
vocab_size kept) give real figures without downloading gigabytes. Per shape, each step in a child
process of its own, one at a time, so that each peak RSS (os.wait4's rusage) is that step's alone:
- build: the random-weight model as float32 safetensors, as the trainer writes merged/
  (bench_export.child_make);
- copy: a plain copy of merged/'s safetensors files (the same bytes read and written once), the
  baseline the writer's time is divided by;
- write F16, write Q8_0: gguf_export.write_gguf alone (seconds inside the child, peak RSS, bytes of
  the file and bytes per tensor type read back with gguf.GGUFReader);
- checked export: gguf_export.export_gguf as a run calls it (the PyTorch reference run, both
  types written, each run in llama.cpp against PyTorch, the Modelfile): seconds, peak RSS, each
  type's verdict;
- llama.cpp (training/gguf_speed.mjs: node-llama-cpp's CPU build, the threads it picks): load
  seconds and greedy decode tokens/s on each written file, after one warm-up reply, F16 then Q8_0.
Ratios from the same run: write ÷ copy, Q8_0 ÷ F16 (bytes, write time, load, decode), peak RSS ÷
fp32 weight bytes. merged/ and the files go to a temporary folder (or --keep DIR), removed at the
end; free disk and memory are checked first.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import bench_export as be

TYPES = ("F16", "Q8_0")
SPEED_SCRIPT = os.path.join(be.ROOT, "training", "gguf_speed.mjs")
# Memory for the build and the checked export (the PyTorch reference run holds the fp32 model),
# as multiples of the fp32 weight bytes.
MEMORY = 1.6
# GGUF bytes per parameter, with room to spare: F16 2, Q8_0 34 bytes per 32 values.
GGUF_BYTES_PER_PARAMETER = {"F16": 2.05, "Q8_0": 1.1}


# ------------------------------------------------------------------------- child processes

def child_copy(payload: dict) -> dict:
    """Copies every safetensors file of merged/ into dest: the baseline for the writer."""
    started = time.monotonic()
    os.makedirs(payload["dest"], exist_ok=True)
    copied = 0
    for name in sorted(os.listdir(payload["merged"])):
        if name.endswith(".safetensors"):
            shutil.copyfile(os.path.join(payload["merged"], name),
                            os.path.join(payload["dest"], name))
            copied += os.path.getsize(os.path.join(payload["dest"], name))
    return {"ok": True, "bytes": copied, "seconds": round(time.monotonic() - started, 3)}


def tensor_bytes(path: str) -> dict:
    """Bytes of tensor data per ggml type inside a GGUF file, and the tensor count per type."""
    import gguf

    by_type: dict = {}
    for tensor in gguf.GGUFReader(path).tensors:
        entry = by_type.setdefault(tensor.tensor_type.name, {"tensors": 0, "bytes": 0})
        entry["tensors"] += 1
        entry["bytes"] += int(tensor.n_bytes)
    return by_type


def child_write(payload: dict) -> dict:
    """gguf_export.write_gguf alone, for one type; the file's bytes per tensor type."""
    import gguf_export

    written = gguf_export.write_gguf(payload["merged"], payload["path"], payload["type"])
    return {"ok": True, **written, "tensor_bytes": tensor_bytes(payload["path"])}


def child_export(payload: dict) -> dict:
    """gguf_export.export_gguf as a run calls it; its report and the check prompt's ids."""
    from transformers import AutoTokenizer

    import gguf_export
    import web_export

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        report = gguf_export.export_gguf(payload["merged"], payload["out"], say)
        error = None
    except gguf_export.GgufSkipped as skipped:
        report, error = None, str(skipped)
    seconds = round(time.monotonic() - started, 3)
    prompt = web_export._prompt_ids(AutoTokenizer.from_pretrained(payload["merged"]))
    if report is None:
        failed = os.path.join(payload["out"], "export.json")
        report = be.read_json(failed) if os.path.isfile(failed) else None
    return {"ok": error is None, "error": error, "report": report, "seconds": seconds,
            "prompt": prompt}


CHILD_TASKS = {"copy": child_copy, "write": child_write, "export": child_export}


def run_child(task: str, payload: dict, what: str, work: str) -> dict:
    return be.run_child(task, payload, what, work, script=os.path.abspath(__file__))


def llama_speed(path: str, prompt: list[int], tokens: int, rounds: int, what: str) -> dict:
    """training/gguf_speed.mjs on one file (its result, or why none), with the node process's
    peak RSS."""
    import gguf_export

    problem = gguf_export.runtime_problem()
    if problem:
        return {"ok": False, "error": problem}
    request = json.dumps({"runtime": gguf_export.runtime_dir(), "model": path, "prompt": prompt,
                          "tokens": tokens, "rounds": rounds})
    started = time.monotonic()
    proc = subprocess.Popen(["node", SPEED_SCRIPT], cwd=be.ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    proc.stdin.write(request)
    proc.stdin.close()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    run = {"exit": code, "seconds": round(time.monotonic() - started, 3),
           "peak_rss_bytes": usage.ru_maxrss * 1024}
    be.log(f"{what}: exit {code}, {run['seconds']:.1f}s, peak RSS {be.gb(run['peak_rss_bytes'])}")
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        result = {"ok": False, "error": f"{SPEED_SCRIPT} exited {code} without a result"}
    return {**result, "run": run}


# ---------------------------------------------------------------------------------- one shape

def disk_needed(parameters: int) -> int:
    """merged/ and its copy, or merged/, the written files and the checked export's files."""
    fp32 = 4 * parameters
    gguf = sum(GGUF_BYTES_PER_PARAMETER.values()) * parameters
    return int(1.05 * max(2 * fp32, fp32 + 2 * gguf))


def bench_shape(name: str, args, work_root: str) -> dict:
    shape = be.SHAPES[name]
    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    merged = os.path.join(work, "merged")
    stats = be.count_parameters(shape["model_type"], shape["config"])
    fp32_bytes = 4 * stats["parameters"]
    result: dict = {"shape": name, "label": shape["label"], "source": shape["source"],
                    "config": shape["config"], "parameters": stats["parameters"],
                    "fp32_weight_bytes": fp32_bytes, "write": {}, "llama_cpp": {}, "errors": []}
    be.log(f"{shape['label']}: {stats['parameters'] / 1e9:.3f} B parameters")
    need, free = disk_needed(stats["parameters"]), shutil.disk_usage(work).free
    result["disk"] = {"needed_bytes": need, "free_bytes": free}
    if need > free:
        result["errors"].append(f"needs about {be.gb(need)} of disk in {work}; {be.gb(free)} free")
        return result
    problem = be.wait_for_memory(int(MEMORY * fp32_bytes), f"{name} build", args.memory_tries)
    if problem:
        result["errors"].append(f"not run: {problem}")
        return result

    made = be.run_child("make", {"shape": name, "dest": merged}, f"{name}: build the model", work)
    result["make"] = {"seconds": made["run"]["seconds"], "peak_rss_bytes":
                      made["run"]["peak_rss_bytes"], "merged_bytes": be.dir_bytes(merged)}
    if not made.get("ok"):
        result["errors"].append(f"building the model failed: {made.get('error')}")
        return result
    result["parameters"] = made["parameters"]
    result["fp32_weight_bytes"] = fp32_bytes = 4 * made["parameters"]

    copied = run_child("copy", {"merged": merged, "dest": os.path.join(work, "copy")},
                       f"{name}: copy merged/'s safetensors (baseline)", work)
    shutil.rmtree(os.path.join(work, "copy"), ignore_errors=True)
    result["copy"] = {k: copied.get(k) for k in ("ok", "error", "bytes", "seconds")}
    result["copy"]["peak_rss_bytes"] = copied["run"]["peak_rss_bytes"]

    files = {}
    for type_name in TYPES:
        path = os.path.join(work, "write", f"{name}-{type_name}.gguf")
        written = run_child("write", {"merged": merged, "path": path, "type": type_name},
                            f"{name}: write_gguf {type_name}", work)
        result["write"][type_name] = {
            **{k: written.get(k) for k in ("ok", "error", "bytes", "tensors", "tensor_bytes",
                                           "seconds")},
            "child_seconds": written["run"]["seconds"],
            "peak_rss_bytes": written["run"]["peak_rss_bytes"]}
        if written.get("ok"):
            files[type_name] = path
        else:
            result["errors"].append(f"write_gguf {type_name} failed: {written.get('error')}")

    problem = be.wait_for_memory(int(MEMORY * fp32_bytes), f"{name} checked export",
                                 args.memory_tries)
    prompt = None
    if problem:
        result["errors"].append(f"checked export not run: {problem}")
    else:
        exported = run_child("export", {"merged": merged, "out": os.path.join(work, "gguf")},
                             f"{name}: export_gguf (written, checked in llama.cpp)", work)
        shutil.rmtree(os.path.join(work, "gguf"), ignore_errors=True)
        result["export"] = summarize_export(exported)
        prompt = exported.get("prompt")
        result["prompt_tokens"] = len(prompt) if prompt else None
        if not exported.get("ok"):
            result["errors"].append(f"checked export: {exported.get('error')}")
    if not args.keep:
        shutil.rmtree(merged, ignore_errors=True)

    for type_name, path in files.items():
        if prompt is None:
            result["llama_cpp"][type_name] = {"ok": False, "error": "no prompt ids (the checked "
                                              "export did not run)"}
            continue
        speed = llama_speed(path, prompt, args.tokens, args.rounds,
                            f"{name}: llama.cpp load and decode, {type_name}")
        result["llama_cpp"][type_name] = speed
        if not speed.get("ok"):
            result["errors"].append(f"llama.cpp {type_name}: {speed.get('error')}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def summarize_export(exported: dict) -> dict:
    report = exported.get("report") or {}
    summary = {"ok": bool(exported.get("ok")), "error": exported.get("error"),
               "seconds": exported.get("seconds"), "child_seconds": exported["run"]["seconds"],
               "peak_rss_bytes": exported["run"]["peak_rss_bytes"],
               "published": report.get("published"), "modelfile": bool(report.get("modelfile")),
               "files": {}}
    for type_name, entry in (report.get("files") or {}).items():
        summary["files"][type_name] = {k: entry.get(k) for k in (
            "bytes", "seconds", "passed", "failure", "max_abs_diff", "tokens_compared",
            "tokens_agreed", "template_matches")}
    return summary


# ---------------------------------------------------------------------------------- report

def ratio(a, b) -> str:
    return f"{a / b:.2f}×" if a and b else "-"


def fnum(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_report(results: list[dict], args) -> None:
    print("bench:export --gguf — training/gguf_export.py on "
          + ("a TINY shape (--smoke): the figures at this size mean nothing, they only show that "
             "every step ran" if args.smoke else
             "real model shapes with random weights (bytes, time, memory and speed are real; the "
             "generated tokens are not)"))
    print()
    rows = []
    for r in results:
        copy = r.get("copy") or {}
        for type_name in TYPES:
            w = (r.get("write") or {}).get(type_name)
            if not w:
                continue
            kinds = ", ".join(f"{k} {be.gb(v['bytes'])} ({v['tensors']})"
                              for k, v in sorted((w.get("tensor_bytes") or {}).items()))
            rows.append([r["label"], type_name, be.gb(w.get("bytes")), kinds or "-",
                         fnum(w.get("seconds")), fnum(copy.get("seconds")),
                         ratio(w.get("seconds"), copy.get("seconds")),
                         be.gb(w.get("peak_rss_bytes")),
                         f"{w['peak_rss_bytes'] / r['fp32_weight_bytes']:.2f}×"])
    print("write_gguf alone (a child process each; copy: the fp32 safetensors of merged/ copied "
          "once, the baseline; tensor data per type with the tensor count)")
    print(be.table(rows, ["model", "type", "file bytes", "tensor data by type", "write s",
                          "copy s", "write ÷ copy", "peak RSS", "RSS ÷ fp32"]))
    print()

    rows = []
    for r in results:
        e = r.get("export")
        if not e:
            continue
        verdicts = []
        for type_name, f in (e.get("files") or {}).items():
            verdict = (f"{f['tokens_agreed']}/{f['tokens_compared']} tokens, max diff "
                       f"{f['max_abs_diff']:.3g}" if f.get("passed") else
                       f"FAILED: {(f.get('failure') or '')[:80]}")
            verdicts.append(f"{type_name} {verdict}")
        rows.append([r["label"], be.gb(r["fp32_weight_bytes"]), fnum(e.get("seconds")),
                     be.gb(e.get("peak_rss_bytes")),
                     f"{e['peak_rss_bytes'] / r['fp32_weight_bytes']:.2f}×",
                     "; ".join(verdicts) or (e.get("error") or "-")])
    print("checked export (export_gguf as a run calls it: PyTorch reference, F16 and Q8_0 written "
          "and run in llama.cpp against PyTorch, Modelfile)")
    print(be.table(rows, ["model", "fp32 bytes", "seconds", "peak RSS", "RSS ÷ fp32",
                          "llama.cpp vs PyTorch (clear-margin tokens agreeing)"]))
    print()

    rows = []
    for r in results:
        for type_name in TYPES:
            s = (r.get("llama_cpp") or {}).get(type_name)
            if not s:
                continue
            if not s.get("ok"):
                rows.append([r["label"], type_name, "-", "-", "-", s.get("error"), "-", "-"])
                continue
            rounds = ", ".join(fnum(x.get("decodeTps"), 2) for x in s["rounds"])
            rows.append([r["label"], type_name, fnum(s["seconds"]["runtime"], 2),
                         fnum(s["seconds"]["model"], 2),
                         fnum(s["warmup"]["promptSeconds"], 2),
                         f"{s['medianDecodeTps']:.2f} ({rounds})", s.get("threads", "-"),
                         be.gb(s["run"]["peak_rss_bytes"])])
    print(f"llama.cpp (node-llama-cpp CPU build): load s (runtime: library and binary; model: file "
          f"and context), warm-up prompt s (the export's check prompt, "
          f"{results[0].get('prompt_tokens') or '-'} tokens, in the warm-up reply), greedy "
          f"decode of {args.tokens} tokens, tokens/s after the "
          f"first, median of {args.rounds} timed replies after one warm-up")
    print(be.table(rows, ["model", "type", "runtime s", "model load s", "warm-up prompt s",
                          "decode tok/s median (replies)", "threads", "peak RSS"]))
    print()
    for r in results:
        w, s = r.get("write") or {}, r.get("llama_cpp") or {}
        w16, w8 = w.get("F16") or {}, w.get("Q8_0") or {}
        s16, s8 = s.get("F16") or {}, s.get("Q8_0") or {}
        load16 = (s16.get("seconds") or {}).get("model")
        load8 = (s8.get("seconds") or {}).get("model")
        print(f"{r['label']}: Q8_0 ÷ F16 — bytes {ratio(w8.get('bytes'), w16.get('bytes'))}, "
              f"write s {ratio(w8.get('seconds'), w16.get('seconds'))}, model load s "
              f"{ratio(load8, load16)}, decode tok/s "
              f"{ratio(s8.get('medianDecodeTps'), s16.get('medianDecodeTps'))}")


def main(args) -> int:
    """Runs the shapes named by args (bench_export.main's parsed arguments)."""
    if args.smoke:
        names = ["smoke-llama"]
        args.memory_tries = min(args.memory_tries, 1)
    else:
        names = list(be.REAL)
    if args.models:
        names = [m.strip() for m in args.models.split(",") if m.strip()]
    args.tokens = args.tokens or (8 if args.smoke else 64)
    args.rounds = args.rounds or (1 if args.smoke else 3)
    return be.run_shapes(names, bench_shape, print_report, args, "bench-gguf.", {"gguf": True})


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "_child":
        sys.exit(be.child_main(sys.argv[2], sys.argv[3], sys.argv[4], CHILD_TASKS))
    print("run it as `npm run bench:export -- --gguf` (training/bench_export.py)", file=sys.stderr)
    sys.exit(2)
