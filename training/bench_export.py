"""Browser-export benchmark on real model shapes, random weights, no download:

    npm run bench:export -- --real            Llama 3.2 1B Instruct and DeepSeek-R1-Distill-Qwen-1.5B
    npm run bench:export -- --real 3b         the same and Llama 3.2 3B Instruct
    npm run bench:export -- --real --eager    also an eager-graph q4 export of each, to compare
                                              decode speed (needs about 3x the fp32 weights in RAM)
    npm run bench:export -- --smoke           every step on a tiny shape, well under a minute (CI)
    npm run bench:export -- --real --gpu      also decode in Chromium with WebGPU (needs a GPU)
    npm run bench:export -- --gguf [--smoke]  the GGUF export instead (training/bench_gguf.py)

Why: the trainer's tests export tiny models, which say nothing about what a user's 1-3 B model
costs. Sizes, export time, export memory and decode speed depend on the shapes (hidden size,
layers, heads, vocabulary) and not on what the weights have learned, so random weights at the real
shapes give real figures without downloading gigabytes. The figures judged:
- export (training/web_export.py export_web, default variants; graph "auto" is the fused graph of
  training/onnx_fused.py for these families): seconds, and peak RSS ÷ fp32 weight bytes (4 bytes
  per parameter; goal <= 1.5), measured on a child process that does nothing else;
- bytes per variant against the files onnx-community publishes for the same models (goal: q4f16 at
  most 10 % larger; theirs keep an fp16 embedding table, ours a 4-bit one, so ours are smaller);
- decode tokens/s in transformers.js (tests/bench/export-decode.ts: Node, onnxruntime-node, CPU),
  the fused q4 file against the eager q4 file (--eager; goal fused ÷ eager >= 1.3), alternated in
  one run so both see the same machine;
- the greedy ids: transformers.js against ONNX Runtime (Python) on the same q4 file, and where
  fp32 is exported, transformers.js's fp32 ids against PyTorch's greedy continuation from merged/
  (export.json → reference.tokens), compared up to the first near-tie.
Random weights make nearly every greedy step a near-tie, so the token checks compare runtimes on
one file; they say nothing about the quality of the quantization. For the same reason the
export's own check (logits against PyTorch) often fails the 4-bit variants of a random model
(small, flat logits against a tolerance that is a fraction of the largest one): its verdict is
reported, and the variant is published all the same so that it can be decoded (child_export).

Each model is built (torch, float32 safetensors as the trainer's merged/, the repo's tiny
tokenizer with the real vocab_size kept in config.json), exported, run by ONNX Runtime and decoded
in child processes, one at a time, so each peak RSS is that step's alone (os.wait4's rusage of
that child). Models and
exports go to a temporary folder (or --keep DIR), removed at the end; free disk and free memory
are checked before each step (the eager export is skipped, with the figures, when memory is short).
Progress goes to stderr; the tables to stdout; --json PATH writes every figure.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

DECODE_SCRIPT = os.path.join("tests", "bench", "export-decode.ts")
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")

# Llama 3.2's rope scaling (the same in the 1B and 3B config.json).
LLAMA_3_2_ROPE = {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
# What Llama 3.2's config.json files share beside their sizes.
LLAMA_3_2 = dict(vocab_size=128256, rope_theta=500000.0, rope_scaling=LLAMA_3_2_ROPE,
                 max_position_embeddings=131072, rms_norm_eps=1e-5, tie_word_embeddings=True,
                 hidden_act="silu", attention_bias=False, mlp_bias=False)


def llama_3_2_shape(size: str, published: dict, **sizes) -> dict:
    """Llama 3.2 `size` Instruct: the sizes its config.json gives beside what the family shares."""
    return {
        "label": f"Llama 3.2 {size} Instruct",
        "source": f"meta-llama/Llama-3.2-{size}-Instruct config.json",
        "model_type": "llama",
        "config": dict(LLAMA_3_2, intermediate_size=8192, num_key_value_heads=8, **sizes),
        "published": published,
    }


# Each shape: its config.json figures (source: the published config.json named), and the sizes of
# onnx-community's files for it (bytes as the Hub lists them, graph and _data together; source:
# the Hub's file listing of the repository named). The first q4f16 figure is the goal's.
SHAPES = {
    "llama-3.2-1b": llama_3_2_shape(
        "1B", hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, head_dim=64,
        published={
            "q4f16": [(1.24e9, "onnx-community/Llama-3.2-1B-Instruct-q4f16 onnx/model_q4f16.onnx"),
                      (1.07e9, "onnx-community/Llama-3.2-1B-Instruct onnx/model_q4f16.onnx")],
            "q4": [(1.66e9, "onnx-community/Llama-3.2-1B-Instruct onnx/model_q4.onnx")],
            "fp16": [(2.47e9, "onnx-community/Llama-3.2-1B-Instruct onnx/model_fp16.onnx(_data)")],
        }),
    "deepseek-r1-distill-qwen-1.5b": {
        "label": "DeepSeek-R1-Distill-Qwen-1.5B",
        "source": "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B config.json",
        "model_type": "qwen2",
        "config": dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                       num_attention_heads=12, num_key_value_heads=2, vocab_size=151936,
                       rope_theta=10000.0, max_position_embeddings=131072, rms_norm_eps=1e-6,
                       tie_word_embeddings=False, use_sliding_window=False, sliding_window=None,
                       max_window_layers=21, hidden_act="silu"),
        "published": {
            "q4f16": [(1.37e9, "onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX onnx/model_q4f16.onnx")],
            "q4": [(1.97e9, "onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX onnx/model_q4.onnx")],
            "fp16": [(3.60e9, "onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX "
                              "onnx/model_fp16.onnx(_data)")],
        },
    },
    "llama-3.2-3b": llama_3_2_shape(
        "3B", hidden_size=3072, num_hidden_layers=28, num_attention_heads=24, head_dim=128,
        published={
            "q4f16": [(2.37e9, "onnx-community/Llama-3.2-3B-Instruct onnx/model_q4f16.onnx(_data)")],
            "q4": [(3.34e9, "onnx-community/Llama-3.2-3B-Instruct onnx/model_q4.onnx(_data)")],
            "fp16": [(6.43e9, "onnx-community/Llama-3.2-3B-Instruct onnx/model_fp16.onnx(_data)")],
        }),
    # --smoke: Llama 3.2's layout (GQA, head_dim 64, llama3 rope, tied) at a size that means
    # nothing; a short context keeps the rotary tables small.
    "smoke-llama": {
        "label": "tiny Llama layout (smoke)",
        "source": "Llama 3.2's layout at a tiny size",
        "model_type": "llama",
        "config": dict(LLAMA_3_2, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, head_dim=64,
                       vocab_size=4096, max_position_embeddings=16384),
        "published": {},
    },
}
REAL = ("llama-3.2-1b", "deepseek-r1-distill-qwen-1.5b")
# --smoke exports the two variants the later steps read (q4: the decode; fp32: the PyTorch ids).
SMOKE_VARIANTS = ("q4", "fp32")
REAL_3B = REAL + ("llama-3.2-3b",)

RSS_GOAL = 1.5             # peak RSS of the export <= this × fp32 weight bytes
SIZE_GOAL = 0.10           # q4f16 bytes at most 10 % over the published file
SPEED_GOAL = 1.3           # fused ÷ eager decode tokens/s
# Memory the steps need, as multiples of the fp32 weight bytes (with room to spare): the fused
# export holds the fp32 PyTorch model for its reference run; the eager export holds the model,
# the exporter's graph and then the fp32 ONNX model it quantizes.
FUSED_MEMORY = 1.6
EAGER_MEMORY = 3.2
MEMORY_WAIT_TRIES = 10
MEMORY_WAIT_SECONDS = 60


# ------------------------------------------------------------------------------ small helpers

def log(line: str) -> None:
    print(f"bench:export: {line}", file=sys.stderr, flush=True)


def gb(count: float | None) -> str:
    return "-" if count is None else f"{count / 1e9:.2f} GB"


def table(rows: list[list], head: list[str]) -> str:
    from bench_trainer import table as render
    return render([[str(c) for c in r] for r in rows], head)


def mem_available() -> int:
    import psutil  # installed with the trainer (accelerate depends on it)

    return int(psutil.virtual_memory().available)


def wait_for_memory(need: int, what: str, tries: int) -> str | None:
    """None once `need` bytes are available, else the reason (after `tries` waits)."""
    for attempt in range(tries + 1):
        free = mem_available()
        if free >= need:
            return None
        if attempt < tries:
            log(f"{what} needs about {gb(need)} of memory, {gb(free)} available; waiting "
                f"{MEMORY_WAIT_SECONDS}s ({attempt + 1} of {tries})")
            time.sleep(MEMORY_WAIT_SECONDS)
    return f"needs about {gb(need)} of memory and {gb(mem_available())} is available"


def count_parameters(model_type: str, c: dict) -> dict:
    """Parameter counts from the config alone (for the disk and memory checks before building)."""
    hidden, inter, layers = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    heads = c["num_attention_heads"]
    kv = c.get("num_key_value_heads") or heads
    head_dim = c.get("head_dim") or hidden // heads
    per_layer = (hidden * heads * head_dim + 2 * hidden * kv * head_dim + heads * head_dim * hidden
                 + 3 * hidden * inter + 2 * hidden)
    if model_type == "qwen2":
        per_layer += heads * head_dim + 2 * kv * head_dim  # q, k, v biases
    embed = c["vocab_size"] * hidden
    head = 0 if c.get("tie_word_embeddings") else embed
    return {"parameters": embed + head + layers * per_layer + hidden, "embedding": embed,
            "embedding_columns": hidden, "lm_head": head}


def read_json(path: str):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def dir_bytes(path: str) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(folder, f)) for f in files)
    return total


# ------------------------------------------------------------------------- child processes

def run_process(cmd: list[str], what: str) -> dict:
    """Runs cmd (its output on stderr); exit code, wall seconds and its own peak RSS."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=sys.stderr, stderr=sys.stderr)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    rss = usage.ru_maxrss * 1024  # kilobytes on Linux
    log(f"{what}: exit {code}, {seconds:.1f}s, peak RSS {gb(rss)}")
    return {"exit": code, "seconds": round(seconds, 3), "peak_rss_bytes": rss}


def run_child(task: str, payload: dict, what: str, work: str,
              script: str = os.path.abspath(__file__)) -> dict:
    """`script`'s `task` (this script's: see CHILD_TASKS) in a child process: its result and run
    figures."""
    out = os.path.join(work, f"child-{task}-{time.monotonic_ns()}.json")
    run = run_process([sys.executable, "-u", script, "_child", task,
                       json.dumps(payload), out], what)
    result = read_json(out) if os.path.isfile(out) else {
        "ok": False, "error": f"the child process exited {run['exit']} without a result"}
    if os.path.isfile(out):
        os.remove(out)
    return {**result, "run": run}


def child_make(payload: dict) -> dict:
    """A random-weight model of the shape, float32 safetensors, with the repo's tiny tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from tiny_models import copy_tokenizer

    shape = SHAPES[payload["shape"]]
    dest = payload["dest"]
    tokenizer = copy_tokenizer(dest)
    # The real vocab_size stays; the special ids are the tiny tokenizer's (the prompt is its ids).
    config = AutoConfig.for_model(shape["model_type"], **shape["config"],
                                  bos_token_id=tokenizer.bos_token_id,
                                  eos_token_id=tokenizer.eos_token_id,
                                  pad_token_id=tokenizer.eos_token_id)
    torch.manual_seed(payload.get("seed", 0))
    # float32, as the trainer writes merged/ (finetune.py): the export's memory depends on what
    # it loads.
    with torch.no_grad():
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.save_pretrained(dest)
    return {"ok": True, "parameters": sum(p.numel() for p in model.parameters())}


def child_export(payload: dict) -> dict:
    """export_web, with one change: a variant that ONNX Runtime runs but that fails the check is
    published all the same (its verdict kept in export.json as `project_check`), so that the
    decode can be measured on it. Random weights make that common: their logits are small and
    flat, so 4-bit rounding moves them by more than the tolerance, which is a fraction of the
    largest logit. The check itself runs unchanged (the same steps, the same time)."""
    import web_export

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    check = web_export.check_variant

    def publish_anyway(path: str, reference: dict, layers: int, variant: str) -> dict:
        result = check(path, reference, layers, variant)
        result["project_check"] = {"passed": result["passed"], "failure": result.get("failure")}
        if not result["passed"] and result.get("steps"):
            say(f"bench:export: {variant} failed the export's check ({result['failure']}); "
                "published all the same, for the decode measurement")
            result["passed"], result["failure"] = True, None
        return result

    web_export.check_variant = publish_anyway
    started = time.monotonic()
    try:
        report = web_export.export_web(payload["merged"], payload["web"], say,
                                       variants=payload.get("variants"), graph=payload["graph"])
    except web_export.ExportSkipped as skipped:
        return {"ok": False, "error": skipped.reason, "report": skipped.report,
                "seconds": round(time.monotonic() - started, 3)}
    return {"ok": True, "report": report, "seconds": round(time.monotonic() - started, 3)}


def child_greedy(payload: dict) -> dict:
    """Greedy decoding of one ONNX file in ONNX Runtime (Python), fed as transformers.js feeds it
    (web_export.check_variant's feeding), with the end-of-sequence ids masked as transformers.js's
    min_new_tokens does; per step the top-1 margin, and decode tokens/s."""
    import numpy as np
    import onnxruntime as ort

    import web_export

    options = ort.SessionOptions()
    options.intra_op_num_threads = payload.get("threads", 0)
    t0 = time.monotonic()
    session = ort.InferenceSession(payload["path"], options, providers=["CPUExecutionProvider"])
    load_seconds = time.monotonic() - t0
    outputs = [o.name for o in session.get_outputs()]
    prompt = payload["prompt"]
    mask = np.ones((1, len(prompt)), dtype=np.int64)
    feeds = {"input_ids": np.array([prompt], dtype=np.int64), "attention_mask": mask,
             "position_ids": web_export.position_ids(mask, len(prompt)),
             **web_export.empty_past(session, 1)}
    ids, margins, seconds = [], [], []
    for _ in range(payload["tokens"]):
        t0 = time.monotonic()
        named = dict(zip(outputs, session.run(None, feeds)))
        seconds.append(time.monotonic() - t0)
        logits = named["logits"][0, -1].astype(np.float32)
        logits[payload["suppress"]] = -np.inf
        top = np.partition(logits, -2)[-2:]
        ids.append(int(np.argmax(logits)))
        margins.append(float(top.max() - top.min()))
        mask = np.ones((1, mask.shape[1] + 1), dtype=np.int64)
        feeds = {"input_ids": np.array([[ids[-1]]], dtype=np.int64), "attention_mask": mask,
                 "position_ids": web_export.position_ids(mask, 1)}
        for name, value in named.items():
            if name.startswith("present."):
                feeds["past_key_values." + name[len("present."):]] = value
    decode = sum(seconds[1:])
    return {"ok": True, "ids": ids, "margins": margins, "load_seconds": round(load_seconds, 3),
            "prefill_seconds": round(seconds[0], 4),
            "decode_tps": (len(ids) - 1) / decode if decode > 0 else None}


CHILD_TASKS = {"make": child_make, "export": child_export, "greedy": child_greedy}


def child_main(task: str, payload: str, out: str, tasks: dict = CHILD_TASKS) -> int:
    try:
        result = tasks[task](json.loads(payload))
    except Exception as error:  # noqa: BLE001 - reported to the parent as this step's failure
        import traceback
        traceback.print_exc()
        result = {"ok": False, "error": f"{type(error).__name__}: {str(error)[:500]}"}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0 if result.get("ok") else 1


# ------------------------------------------------------------------------------ comparisons

def compare_ids(got: list[int], want: list[int], margins: list[float] | None = None,
                limit: int | None = None) -> dict:
    """How far two greedy sequences agree; `limit` compares only that many leading steps."""
    n = min(len(got), len(want)) if limit is None else min(limit, len(got), len(want))
    first = next((i for i in range(n) if got[i] != want[i]), None)
    result = {"compared": n, "agree": first is None, "first_difference": first}
    if first is not None and margins is not None and first < len(margins):
        result["margin_at_difference"] = margins[first]
    return result


def describe_comparison(c: dict | None) -> str:
    if not c:
        return "-"
    if c.get("skipped"):
        return c["skipped"]
    if c["agree"]:
        return f"agree ({c['compared']} of {c['compared']})"
    text = f"DIFFER from step {c['first_difference']} of {c['compared']}"
    if "margin_at_difference" in c:
        text += f" (reference top-1 margin there {c['margin_at_difference']:.2e})"
    return text


def eos_ids(web: str) -> list[int]:
    """The ids transformers.js masks while min_new_tokens is not reached."""
    for name in ("generation_config.json", "config.json"):
        path = os.path.join(web, name)
        if os.path.isfile(path):
            eos = read_json(path).get("eos_token_id")
            if eos is not None:
                return [int(e) for e in (eos if isinstance(eos, list) else [eos])]
    return []


def pytorch_prefix(report: dict, variant: str, tokens: int) -> tuple[list[int], int, str]:
    """PyTorch's greedy tokens, and how many of them the rule compares: up to the first near-tie
    (top-1 lead below the variant's clear margin) or end-of-sequence id, whichever comes first."""
    reference = report["reference"]
    want = reference["tokens"][:tokens]
    tolerance = (report["variants"].get(variant) or {}).get("tolerance") or {}
    clear = tolerance.get("clear_margin") or 0.0
    stop = next((i for i, m in enumerate(reference["margins"][:tokens]) if m < clear), len(want))
    why = f"first near-tie at step {stop}" if stop < len(want) else "no near-tie"
    return want, stop, why


# ------------------------------------------------------------------------------- the decode

def node_decode(dirs: list[str], dtype: str, tokens: int, rounds: int, work: str, what: str,
                device: str = "cpu", swiftshader: bool = False) -> dict:
    node = shutil.which("node")
    if node is None:
        return {"ok": False, "error": "node is not on PATH"}
    out = os.path.join(work, f"decode-{time.monotonic_ns()}.json")
    cmd = [node, "--import", "tsx", DECODE_SCRIPT, "--tokens", str(tokens), "--rounds",
           str(rounds), "--dtype", dtype, "--device", device, "--json", out,
           "--cache", os.path.join(work, "transformers-cache")]
    if swiftshader:
        cmd.append("--swiftshader")
    run = run_process(cmd + dirs, what)
    shutil.rmtree(os.path.join(work, "transformers-cache"), ignore_errors=True)
    if run["exit"] != 0 or not os.path.isfile(out):
        return {"ok": False, "error": f"{DECODE_SCRIPT} exited {run['exit']}", "run": run}
    result = read_json(out)
    os.remove(out)
    return {"ok": True, **result, "run": run}


def gpu_problem(mode: str) -> str | None:
    """None when the machine can run the WebGPU decode (mode "gpu" or "swiftshader")."""
    needs = []
    if not os.path.isfile(CHROMIUM):
        needs.append(f"Chromium at {CHROMIUM} (or CHROMIUM_PATH)")
    for path in ("node_modules/playwright-core",
                 "node_modules/@huggingface/transformers/dist/transformers.web.js",
                 "node_modules/onnxruntime-web/dist"):
        if not os.path.exists(os.path.join(ROOT, path)):
            needs.append(f"{path} (npm ci)")
    if mode == "gpu":
        has_nvidia = shutil.which("nvidia-smi") is not None and subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode == 0
        has_render = os.path.isdir("/dev/dri") and any(
            n.startswith("renderD") for n in os.listdir("/dev/dri"))
        if not (has_nvidia or has_render):
            needs.append("a GPU Chromium can reach through Vulkan (nvidia-smi -L lists none and "
                         "there is no /dev/dri/renderD* node)")
    return "; ".join(needs) or None


GPU_NEEDS = """--gpu decodes the q4 exports in Chromium with WebGPU on this machine's GPU
(tests/bench/export-decode.ts --device webgpu: headless /usr/bin/chromium through playwright-core,
the harness's flags without --disable-gpu, plus --enable-unsafe-webgpu
--enable-features=Vulkan,VulkanFromANGLE --use-angle=vulkan --ignore-gpu-blocklist). It needs:
  - a GPU with a Vulkan driver Chromium can use (on NVIDIA: the driver's Vulkan ICD and libvulkan1);
  - /usr/bin/chromium (or CHROMIUM_PATH) and node_modules (npm ci);
  - the same disk and memory as the CPU run.
`--gpu swiftshader` runs the same path on Chromium's software WebGPU, on any machine: it checks
the path, its figures say nothing about a GPU."""


# ---------------------------------------------------------------------------------- one shape

def bench_shape(name: str, args, work_root: str) -> dict:
    shape = SHAPES[name]
    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    merged = os.path.join(work, "merged")
    web = os.path.join(work, "web")
    web_eager = os.path.join(work, "web-eager")
    stats = count_parameters(shape["model_type"], shape["config"])
    fp32_bytes = 4 * stats["parameters"]
    result: dict = {"shape": name, "label": shape["label"], "source": shape["source"],
                    "config": shape["config"], "parameters": stats["parameters"],
                    "fp32_weight_bytes": fp32_bytes, "errors": []}
    log(f"{shape['label']}: {stats['parameters'] / 1e9:.3f} B parameters")

    import web_export
    variants = SMOKE_VARIANTS if args.smoke else web_export.default_variants(stats)
    need_disk = int(fp32_bytes + web_export.disk_needed(stats, variants, "fused")
                    + web_export.estimate_bytes(stats, "q4") * 1.05)
    if args.eager:
        need_disk += web_export.disk_needed(stats, ("q4",), "eager")
    free_disk = shutil.disk_usage(work).free
    result["disk"] = {"needed_bytes": need_disk, "free_bytes": free_disk}
    if need_disk > free_disk:
        result["errors"].append(f"needs about {gb(need_disk)} of disk in {work}; "
                                f"{gb(free_disk)} free")
        return result
    problem = wait_for_memory(int(FUSED_MEMORY * fp32_bytes), f"{name} export", args.memory_tries)
    if problem:
        result["errors"].append(f"export not run: {problem}")
        return result

    made = run_child("make", {"shape": name, "dest": merged}, f"{name}: build the model", work)
    result["make"] = {"seconds": made["run"]["seconds"], "peak_rss_bytes":
                      made["run"]["peak_rss_bytes"], "merged_bytes": dir_bytes(merged)}
    if not made.get("ok"):
        result["errors"].append(f"building the model failed: {made.get('error')}")
        return result
    result["parameters"] = made["parameters"]
    result["fp32_weight_bytes"] = fp32_bytes = 4 * made["parameters"]

    exported = run_child("export", {"merged": merged, "web": web, "graph": "auto",
                                    "variants": list(SMOKE_VARIANTS) if args.smoke else None},
                         f"{name}: export_web ({'smoke' if args.smoke else 'default'} variants, "
                         "graph auto)", work)
    result["export"] = summarize_export(exported, fp32_bytes, shape)
    if not exported.get("ok"):
        result["errors"].append(f"export failed: {exported.get('error')}")

    if args.eager:
        problem = wait_for_memory(int(EAGER_MEMORY * fp32_bytes), f"{name} eager export",
                                  args.memory_tries)
        if problem:
            result["eager_export"] = {"skipped": f"eager export not run: {problem}"}
        else:
            eager = run_child("export", {"merged": merged, "web": web_eager, "graph": "eager",
                                         "variants": ["q4"]},
                              f"{name}: export_web (q4, graph eager)", work)
            result["eager_export"] = summarize_export(eager, fp32_bytes, shape)
            if not eager.get("ok"):
                result["errors"].append(f"eager export failed: {eager.get('error')}")
    if not args.keep:
        shutil.rmtree(merged, ignore_errors=True)

    candidates = [("fused", web)] + ([("eager", web_eager)] if args.eager else [])
    decode_dirs = [(label, folder) for label, folder in candidates
                   if os.path.isfile(os.path.join(folder, "onnx", "model_q4.onnx"))]
    result["decode"] = decode_figures(name, decode_dirs, args, work)
    if args.gpu:
        result["gpu_decode"] = gpu_figures(name, decode_dirs, result["decode"], args, work)
    if os.path.isfile(os.path.join(web, "onnx", "model.onnx")):
        result["fp32_vs_pytorch"] = fp32_figures(name, web, args, work)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def summarize_export(exported: dict, fp32_bytes: int, shape: dict) -> dict:
    run = exported["run"]
    summary = {"ok": bool(exported.get("ok")), "error": exported.get("error"),
               "seconds": exported.get("seconds", run["seconds"]),
               "child_seconds": run["seconds"], "peak_rss_bytes": run["peak_rss_bytes"],
               "peak_rss_per_fp32_bytes": run["peak_rss_bytes"] / fp32_bytes, "variants": {}}
    report = exported.get("report") or {}
    summary["graph"] = report.get("graph")
    for variant, entry in (report.get("variants") or {}).items():
        published = shape["published"].get(variant) or []
        files = len(entry.get("external_data") or []) + 1 if entry.get("bytes") else 0
        verdict = entry.get("project_check") or {"passed": entry.get("passed", False),
                                                 "failure": entry.get("failure")}
        row = {"published": entry.get("published", False), "passed": verdict["passed"],
               "failure": verdict["failure"], "files": files, "bytes": entry.get("bytes"),
               "seconds": entry.get("seconds"), "max_abs_diff": entry.get("max_abs_diff"),
               "tokens": entry.get("tokens"), "tokens_compared": entry.get("tokens_compared"),
               "tokens_agreed": entry.get("tokens_agreed"),
               "onnx_community": [{"bytes": b, "source": s,
                                   "ratio": (entry["bytes"] / b) if entry.get("bytes") else None}
                                  for b, s in published]}
        summary["variants"][variant] = row
    return summary


def decode_figures(name: str, dirs: list[tuple[str, str]], args, work: str) -> dict:
    """transformers.js (Node, CPU) on each q4 file, alternated; ONNX Runtime (Python) greedy on
    the same files; the id comparisons and fused ÷ eager."""
    if not dirs:
        return {"skipped": "no q4 file was published"}
    figures: dict = {"tokens": args.tokens, "rounds": args.rounds, "files": {}}
    for label, folder in dirs:
        report = read_json(os.path.join(folder, "export.json"))
        greedy = run_child("greedy", {"path": os.path.join(folder, "onnx", "model_q4.onnx"),
                                      "prompt": report["reference"]["prompt_ids"],
                                      "tokens": args.tokens, "suppress": eos_ids(folder)},
                           f"{name}: ONNX Runtime (Python) greedy on the {label} q4", work)
        figures["files"][label] = {"dir": folder, "ort_python": {
            k: greedy.get(k) for k in ("ok", "error", "ids", "margins", "load_seconds",
                                       "prefill_seconds", "decode_tps")}}
        figures["files"][label]["ort_python"]["peak_rss_bytes"] = greedy["run"]["peak_rss_bytes"]
    js = node_decode([folder for _, folder in dirs], "q4", args.tokens, args.rounds, work,
                     f"{name}: transformers.js decode (Node, CPU, q4)")
    figures["node_run"] = {k: js.get(k) for k in ("ok", "error", "runtime", "run")}
    if not js.get("ok"):
        return figures
    for (label, _), r in zip(dirs, js["results"]):
        entry = figures["files"][label]
        entry["transformers_js"] = r
        ort_py = entry["ort_python"]
        entry["js_vs_ort_python"] = (compare_ids(r["ids"], ort_py["ids"], ort_py["margins"])
                                     if ort_py.get("ok") else {"skipped": "no ONNX Runtime ids"})
    note_fused_per_eager(figures, {label: entry.get("transformers_js")
                                   for label, entry in figures["files"].items()})
    return figures


def note_fused_per_eager(figures: dict, runs: dict) -> None:
    """figures["fused_per_eager"]: the fused file's median decode tokens/s over the eager file's,
    set only when both were measured."""
    fused = runs.get("fused") or {}
    eager = runs.get("eager") or {}
    if fused.get("medianDecodeTps") and eager.get("medianDecodeTps"):
        figures["fused_per_eager"] = fused["medianDecodeTps"] / eager["medianDecodeTps"]


def gpu_figures(name: str, dirs: list[tuple[str, str]], cpu: dict, args, work: str) -> dict:
    """transformers.js in Chromium with WebGPU on each q4 file, alternated; its ids against ONNX
    Runtime (Python, CPU) on the same file (GPU kernels round differently: a difference at a
    near-tie is expected)."""
    if not dirs:
        return {"skipped": "no q4 file was published"}
    swiftshader = args.gpu == "swiftshader"
    js = node_decode([folder for _, folder in dirs], "q4", args.tokens, args.rounds, work,
                     f"{name}: transformers.js decode (Chromium, WebGPU, q4)", device="webgpu",
                     swiftshader=swiftshader)
    figures = {"swiftshader": swiftshader, **{k: js.get(k) for k in ("ok", "error", "runtime")},
               "files": {}}
    if js.get("ok"):
        for (label, _), r in zip(dirs, js["results"]):
            ort_py = ((cpu.get("files") or {}).get(label) or {}).get("ort_python") or {}
            figures["files"][label] = {**r, "vs_ort_python": compare_ids(
                r["ids"], ort_py["ids"], ort_py["margins"]) if ort_py.get("ok") else None}
        note_fused_per_eager(figures, figures["files"])
    return figures


def fp32_figures(name: str, web: str, args, work: str) -> dict:
    """transformers.js's fp32 greedy ids against PyTorch's (export.json's reference), up to the
    first near-tie."""
    report = read_json(os.path.join(web, "export.json"))
    js = node_decode([web], "fp32", args.tokens, 1, work,
                     f"{name}: transformers.js decode (Node, CPU, fp32)")
    if not js.get("ok"):
        return {"skipped": f"fp32 decode failed: {js.get('error')}"}
    ids = js["results"][0]["ids"]
    want, stop, why = pytorch_prefix(report, "fp32", args.tokens)
    eos = set(eos_ids(web))
    first_eos = next((i for i, t in enumerate(want) if t in eos), None)
    if first_eos is not None and first_eos < stop:
        stop, why = first_eos, f"PyTorch ends the sequence at step {first_eos}"
    comparison = compare_ids(ids, want, report["reference"]["margins"], limit=stop)
    return {"ids": ids, "pytorch": want, "rule": why, **comparison,
            "decode_tps": js["results"][0]["medianDecodeTps"]}


# ---------------------------------------------------------------------------------- report

def judge(ok: bool, smoke: bool) -> str:
    return "(smoke: not judged)" if smoke else ("MET" if ok else "NOT MET")


def print_report(results: list[dict], args) -> None:
    smoke = args.smoke
    print("bench:export — training/web_export.py export_web on "
          + ("a TINY shape (--smoke): the figures at this size mean nothing, they only show that "
             "every step ran" if smoke else
             "real model shapes with random weights (sizes, time, memory and speed are real; "
             "the generated tokens are not)"))
    print()
    rows = []
    for r in results:
        for key in ("export", "eager_export"):
            export = r.get(key)
            if not export or export.get("skipped"):
                continue
            ratio = export.get("peak_rss_per_fp32_bytes")
            # The goal is the default export's; the eager one is there for the decode comparison.
            goal = (judge(ratio <= RSS_GOAL, smoke) if key == "export" else "-") if ratio else "-"
            rows.append([r["label"], f"{r['parameters'] / 1e9:.3f} B", gb(r["fp32_weight_bytes"]),
                         f"{(r.get('make') or {}).get('seconds', float('nan')):.0f}",
                         ", ".join(export.get("variants") or {}) or "-",
                         export.get("graph") or "-",
                         f"{export.get('seconds', float('nan')):.0f}",
                         gb(export.get("peak_rss_bytes")), f"{ratio:.2f}×" if ratio else "-", goal])
    print("export (a child process each; build s: the random model, written as float32 "
          "safetensors like the trainer's merged/)")
    print(table(rows, ["model", "params", "fp32 bytes", "build s", "variants", "graph",
                       "export s", "peak RSS",
                       "RSS ÷ fp32", f"goal ≤ {RSS_GOAL}×"]))
    print()

    rows = []
    for r in results:
        for key, graph in (("export", None), ("eager_export", "eager")):
            export = r.get(key) or {}
            if export.get("skipped"):
                rows.append([r["label"], "eager", "q4", "-", "-", "-", export["skipped"], "-",
                             "-", "-"])
                continue
            for variant, v in (export.get("variants") or {}).items():
                failure = v.get("failure") or ""
                check = "ok" if v["passed"] else "FAILED: " + failure.split("; ")[0] + (
                    " …" if "; " in failure else "")
                if v["passed"] and v.get("tokens") == "inconclusive":
                    check += " (logits; tokens near-tied)"
                if not v["passed"] and v["published"]:
                    check += " (published here all the same)"
                published = v["onnx_community"]
                first = published[0] if published else None
                goal = "-"
                if first and first["ratio"] is not None and variant == "q4f16":
                    goal = judge(first["ratio"] <= 1 + SIZE_GOAL, smoke)
                rows.append([r["label"], graph or export.get("graph") or "-", variant, v["files"],
                             gb(v["bytes"]), f"{(v.get('seconds') or {}).get('build', 0):.0f}",
                             check,
                             " / ".join(gb(p["bytes"]) for p in published) or
                             ("-" if smoke else "not found"),
                             " / ".join(f"{p['ratio']:.2f}×" for p in published
                                        if p["ratio"] is not None) or "-",
                             goal])
    print("variants (bytes: the .onnx and its _data chunks; check: export_web's own verdict; "
          "onnx-community: the published file(s), sources in the JSON)")
    print(table(rows, ["model", "graph", "variant", "files", "bytes", "build s", "check",
                       "onnx-community", "ours ÷ theirs", f"q4f16 goal ≤ +{SIZE_GOAL:.0%}"]))
    print()

    rows, ratios = [], []
    for r in results:
        decode = r.get("decode") or {}
        if decode.get("skipped"):
            rows.append([r["label"], "-", decode["skipped"], "-", "-", "-", "-"])
            continue
        for label, f in (decode.get("files") or {}).items():
            js = f.get("transformers_js") or {}
            ort_py = f.get("ort_python") or {}
            tps = js.get("decodeTps") or []
            rows.append([
                r["label"], label,
                (f"{js['medianDecodeTps']:.2f} ({', '.join(f'{x:.2f}' for x in tps)})"
                 if js.get("medianDecodeTps") else (decode.get("node_run") or {}).get("error")
                 or "-"),
                f"{js.get('loadSeconds', float('nan')):.1f}",
                f"{ort_py['decode_tps']:.2f}" if ort_py.get("decode_tps") else
                (ort_py.get("error") or "-"),
                describe_comparison(f.get("js_vs_ort_python")),
                "yes" if js.get("deterministic") else ("NO" if js else "-")])
        if "fused_per_eager" in decode:
            ratios.append((r["label"], decode["fused_per_eager"]))
    print(f"decode, q4 (transformers.js in Node, onnxruntime-node CPU: {args.tokens} new tokens, "
          f"{args.rounds} rounds alternated, tokens/s after the first; ONNX Runtime Python on the "
          "same file)")
    print(table(rows, ["model", "graph", "transformers.js tok/s median (rounds)", "load s",
                       "ORT-Python tok/s", "ids: transformers.js vs ORT-Python",
                       "same ids every round"]))
    for label, ratio in ratios:
        print(f"{label}: fused ÷ eager decode tokens/s {ratio:.2f}×   goal ≥ {SPEED_GOAL}×   "
              f"{judge(ratio >= SPEED_GOAL, smoke)}")
    if not ratios:
        print("fused ÷ eager: not measured (no eager q4 export; --eager runs one where memory "
              "allows)")
    print()

    fp32 = [(r["label"], r["fp32_vs_pytorch"]) for r in results if r.get("fp32_vs_pytorch")]
    if fp32:
        print("fp32: transformers.js greedy ids vs PyTorch's (merged/, export.json reference), "
              "compared up to the first near-tie")
        for label, c in fp32:
            print(f"{label}: {describe_comparison(c)}; {c.get('rule', '')}")
    else:
        print("fp32: not exported by default at these sizes (a browser tab cannot hold it), so no "
              "transformers.js vs PyTorch comparison")

    gpu = [(r["label"], r["gpu_decode"]) for r in results if r.get("gpu_decode")]
    if gpu:
        print()
        print("decode in Chromium with WebGPU, q4")
        for label, g in gpu:
            if not g.get("ok"):
                print(f"{label}: {g.get('skipped') or g.get('error')}")
                continue
            print(f"{label}: {g.get('runtime')}")
            for graph, f in g["files"].items():
                print(f"  {graph}: decode tokens/s median {f.get('medianDecodeTps') or 0:.2f}, "
                      f"load {f.get('loadSeconds', 0):.1f} s; ids vs ORT-Python (CPU): "
                      f"{describe_comparison(f.get('vs_ort_python'))}")
            if "fused_per_eager" in g:
                print(f"  fused ÷ eager {g['fused_per_eager']:.2f}×"
                      + ("   (SwiftShader: not judged)" if g["swiftshader"] else
                         f"   goal ≥ {SPEED_GOAL}×   {judge(g['fused_per_eager'] >= SPEED_GOAL, smoke)}"))


# ------------------------------------------------------------------------------------ main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true",
                        help="every step on a tiny shape (figures mean nothing)")
    parser.add_argument("--gguf", action="store_true",
                        help="the GGUF export (training/bench_gguf.py) on the 1B and 1.5B shapes, "
                             "or with --smoke on the tiny one")
    parser.add_argument("--real", nargs="?", const="default", metavar="3b",
                        help="the 1B and 1.5B shapes; `--real 3b` adds Llama 3.2 3B")
    parser.add_argument("--models", help="only these shapes (comma-separated: "
                                         + ", ".join(s for s in SHAPES if s != "smoke-llama") + ")")
    parser.add_argument("--eager", action="store_true",
                        help="also an eager-graph q4 export per shape (about 3x the fp32 weights "
                             "in memory), for fused ÷ eager decode speed")
    parser.add_argument("--gpu", nargs="?", const="gpu", metavar="swiftshader",
                        help="also decode in Chromium with WebGPU; `--gpu swiftshader` on "
                             "Chromium's software WebGPU (checks the path only)")
    parser.add_argument("--tokens", type=int,
                        help="new tokens per reply (32, --gguf 64; smoke 8)")
    parser.add_argument("--rounds", type=int,
                        help="timed replies per file (3; smoke 2, --gguf --smoke 1)")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--keep", help="build in this folder and keep it")
    parser.add_argument("--memory-tries", type=int, default=MEMORY_WAIT_TRIES,
                        help="minutes to wait for free memory before a step is skipped")
    args = parser.parse_args(argv)

    if args.models:
        unknown = [m.strip() for m in args.models.split(",") if m.strip() not in SHAPES]
        if unknown:
            parser.error(f"unknown shapes {unknown} (known: {', '.join(SHAPES)})")
    if args.gguf:
        if args.real or args.eager or args.gpu:
            parser.error("--gguf runs on its own (with --smoke, --models, --tokens, --rounds, "
                         "--json, --keep)")
        if (args.tokens is not None and args.tokens < 2) or (args.rounds is not None
                                                              and args.rounds < 1):
            parser.error("--tokens must be at least 2 and --rounds at least 1")
        import bench_gguf
        return bench_gguf.main(args)
    if args.smoke == bool(args.real):
        parser.error("choose --smoke or --real")
    if args.real not in (None, "default", "3b"):
        parser.error(f"--real takes nothing or 3b, not {args.real!r}")
    if args.gpu not in (None, "gpu", "swiftshader"):
        parser.error(f"--gpu takes nothing or swiftshader, not {args.gpu!r}")
    if args.gpu:
        problem = gpu_problem(args.gpu)
        if problem:
            print(GPU_NEEDS)
            print(f"\nNot on this machine: {problem}.")
            return 2
    args.tokens = args.tokens or (8 if args.smoke else 32)
    args.rounds = args.rounds or (2 if args.smoke else 3)
    if args.tokens < 2 or args.rounds < 1:
        parser.error("--tokens must be at least 2 and --rounds at least 1")
    if args.smoke:
        names = ["smoke-llama"]
        args.eager = True  # cheap at this size, and the fused ÷ eager path must run in CI
        args.memory_tries = min(args.memory_tries, 1)
    else:
        names = list(REAL_3B if args.real == "3b" else REAL)
    if args.models:
        names = [m.strip() for m in args.models.split(",") if m.strip()]

    return run_shapes(names, bench_shape, print_report, args, "bench-export.",
                      {"goals": {"peak_rss_per_fp32_bytes": RSS_GOAL,
                                 "q4f16_bytes_at_most_over": SIZE_GOAL,
                                 "fused_per_eager_decode": SPEED_GOAL}})


def run_shapes(names: list[str], bench, report, args, prefix: str, extra: dict) -> int:
    """bench(name, args, work) for each shape, in args.keep or a temporary folder (removed after);
    then report(results, args), the run's length and the machine's load, and with args.json every
    figure (and `extra`). Exit code 1 when a shape has errors."""
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    load_start = os.getloadavg()[0]
    results = []
    try:
        for name in names:
            results.append(bench(name, args, work))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    total = time.monotonic() - started

    load = {"cores": os.cpu_count(), "load_average_1min_start": load_start,
            "load_average_1min_end": os.getloadavg()[0]}
    report(results, args)
    errors = [(r["label"], e) for r in results for e in r.get("errors", [])]
    if errors:
        print()
        print("errors")
        for label, e in errors:
            print(f"{label}: {e}")
    print()
    print(f"whole run {total:.0f} s on {load['cores']} cores (1-minute load average "
          f"{load_start:.1f} at the start, {load['load_average_1min_end']:.1f} at the end: other "
          "work on the machine slows every figure)" + (f"; kept in {work}" if args.keep else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"smoke": args.smoke, "argv": sys.argv[1:], "seconds": round(total, 1),
                       "machine": load, **extra, "results": results}, handle, indent=2)
    return 1 if any(r.get("errors") for r in results) else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "_child":
        sys.exit(child_main(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit(main())
