"""training/gguf_export.py with real llama.cpp (node-llama-cpp's CPU build, `npm run llama:setup`):
tiny models of each family the writer knows, taught one answer (test_web_export.make_taught) so that
greedy decoding has clear margins, written as F16 and Q8_0 and checked against PyTorch by llama.cpp
itself (Gemma 2 and Phi 3 with SentencePiece-style tokenizers built here); the rotary row order,
Llama 3's rope factors, Gemma's norm offset and the tokenizer's merge-ranked scores shown to
matter; what it refuses (a family, a config llama.cpp cannot run, a tokenizer, too little disk),
before it writes anything.

    npm run llama:setup && npm run test:python
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gguf_export  # noqa: E402
import test_web_export  # noqa: E402
import tiny_models  # noqa: E402
import web_export  # noqa: E402

# llama: plain attention, untied, default rope (the pairs reordering in play); llama3: Llama 3.2's
# shape (grouped kv heads, tied embeddings, llama3 rope scaling in play at the test's positions);
# qwen2: q/k/v biases; qwen3: per-head q/k norms; gemma2: Gemma's norms (1 + weight), soft-capping,
# a sliding window of 8 in play, and a Gemma-style SentencePiece tokenizer (no space prefix, BOS
# added); phi3: fused qkv and gate/up projections, untied, and a Llama-2-style SentencePiece
# tokenizer (a space prefix, after each special token too). Gemma 2's query_pre_attn_scalar is its
# head_dim, as in the real 2B and 9B (llama.cpp scales by head_dim).
LLAMA3_ROPE = {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0,
               "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}
# gemma3: six layers (five with the sliding window, then a full one, llama.cpp's pattern), per-head
# q/k norms, the full layer's rope with base 1e6 and linear scaling, the Gemma tokenizer.
# longrope: a Phi 3 with Phi 3.5's longrope scaled down: short factors for the first 256 tokens
# (llama.cpp makes no context smaller than that), 2048 in all (attention factor sqrt(1 + ln 8 /
# ln 256)); every factor other than 1, the short ones turning each frequency about 1.5 radians a
# position and the long ones far slower, so that a missing or swapped table changes the logits
# (the tiny model's answer hardly depends on positions otherwise); and Phi 3's own tokenizer
# flags: its chat tokens strip the whitespace after them (rstrip), which llama.cpp does only for a
# model named Phi-3 (the run's name here, "longrope", does not say so; the phi3 model's, "phi3",
# says so without rstrip).
LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0,
            "short_factor": [0.67, 0.21, 0.067, 0.021, 0.0067, 0.0021, 0.00067, 0.00021],
            "long_factor": [1.5, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0, 30.0],
            "original_max_position_embeddings": 256}
GEMMA3_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
               "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6}}
KINDS = {"llama": ("llama", {}), "llama3": ("llama_gqa_tied", {"rope_parameters": LLAMA3_ROPE}),
         "qwen2": ("qwen2", {}), "qwen3": ("qwen3", {}),
         "gemma2": ("gemma2", {"query_pre_attn_scalar": 16}), "phi3": ("phi3", {}),
         "gemma3": ("gemma3", {"query_pre_attn_scalar": 16, "num_hidden_layers": 6,
                               "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
                               "rope_parameters": GEMMA3_ROPE}),
         "longrope": ("phi3", {"rope_parameters": LONGROPE, "max_position_embeddings": 2048,
                               "original_max_position_embeddings": 256})}
# Their tokenizers' style (phi3-rstrip: Phi 3's, whose chat tokens carry rstrip).
SPM = {"gemma2": "gemma", "gemma3": "gemma", "phi3": "phi3", "longrope": "phi3-rstrip"}
PHI3 = ("phi3", "longrope")
# The end of turn (and end of sequence) each family's Modelfile stops at.
STOPS = {"gemma2": ["<end_of_turn>", "<eos>"], "gemma3": ["<end_of_turn>", "<eos>"],
         "phi3": ["<|end|>", "<|endoftext|>"], "longrope": ["<|end|>", "<|endoftext|>"]}


def make_spm_tokenizer(dest: str, style: str) -> str:
    """A tiny SentencePiece-style tokenizer (BPE with byte fallback: the 256 byte tokens in the
    vocabulary, merges trained here on the taught question and answer) laid out as Gemma's (specials first,
    spaces replaced by "▁", no prefix, BOS added by its post-processor) or Phi 3's (Llama 2's
    specials, a "▁" prefix normalizer, the chat tokens added after the vocabulary; phi3-rstrip:
    with the real Phi 3's rstrip on every added token but <unk>, <s> and <|endoftext|>), with the
    family's chat template (test_ollama_modelfile's)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, trainers
    from tokenizers.processors import TemplateProcessing

    import make_test_export
    from test_ollama_modelfile import GEMMA, PHI3

    gemma = style == "gemma"
    replace = normalizers.Replace(" ", "\u2581")
    trainer = Tokenizer(models.BPE())
    trainer.normalizer = replace
    # Not trained on the check prompt as a whole: it is split into pieces, where the merge order
    # (llama.cpp's token scores) decides which.
    trainer.train_from_iterator([make_test_export.QUESTION, make_test_export.ANSWER,
                                 "Paris is the capital of France.", "Why is it famous?"],
                                trainers.BpeTrainer(vocab_size=300, show_progress=False))
    trained = json.loads(trainer.to_str())["model"]
    specials = (["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"] if gemma
                else ["<unk>", "<s>", "</s>"])
    vocab = {text: i for i, text in enumerate(specials + [f"<0x{b:02X}>" for b in range(256)])}
    for text in sorted(trained["vocab"], key=trained["vocab"].get):
        vocab.setdefault(text, len(vocab))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in trained["merges"]]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, byte_fallback=True,
                                     unk_token="<unk>", fuse_unk=True))
    tokenizer.normalizer = (replace if gemma else
                            normalizers.Sequence([normalizers.Prepend("\u2581"), replace]))
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse()]
        + ([] if gemma else [decoders.Strip(" ", 1, 0)]))
    chat = [] if gemma else ["<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>"]
    keep = ("<unk>", "<s>", "<|endoftext|>")
    tokenizer.add_special_tokens([AddedToken(text, special=True, normalized=False,
                                             rstrip=style == "phi3-rstrip" and text not in keep)
                                  for text in specials + chat])
    if gemma:
        tokenizer.post_processor = TemplateProcessing(single="<bos> $A", pair="<bos> $A $B:1",
                                                      special_tokens=[("<bos>", 2)])
    os.makedirs(dest, exist_ok=True)
    tokenizer.save(os.path.join(dest, "tokenizer.json"))
    names = ({"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>",
              "unk_token": "<unk>"} if gemma else
             {"bos_token": "<s>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
              "unk_token": "<unk>"})
    for name, content in (("special_tokens_map.json", names),
                          ("tokenizer_config.json", {
                              **names, "tokenizer_class": "PreTrainedTokenizerFast",
                              "add_bos_token": gemma, "chat_template": GEMMA if gemma else PHI3})):
        with open(os.path.join(dest, name), "w", encoding="utf-8") as handle:
            json.dump(content, handle)
    return dest


class GgufExportTest(test_web_export.ExportTestCase):
    prefix = "gguf-export-test."

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        problem = gguf_export.runtime_problem()
        if problem:
            raise RuntimeError(problem)
        cls.models = {}
        for name, (kind, changes) in KINDS.items():
            merged = os.path.join(cls.tmp, name, "merged")
            if name in SPM:
                tokenizer = make_spm_tokenizer(os.path.join(cls.tmp, name, "tokenizer"), SPM[name])
                with mock.patch.object(tiny_models, "TOKENIZER_DIR", tokenizer):
                    test_web_export.make_taught(kind, merged, **changes)
            else:
                test_web_export.make_taught(kind, merged, **changes)
            cls.models[name] = merged

    def export(self, name: str, **kwargs) -> dict:
        return gguf_export.export_gguf(self.models[name], os.path.join(self.tmp, name, "gguf"),
                                       test_web_export.Log(), **kwargs)

    def test_every_family_passes_in_llama_cpp_as_f16_and_q8_0(self):
        import gguf

        for name in KINDS:
            with self.subTest(name=name):
                report = self.export(name)
                self.assertEqual(report["published"], ["F16", "Q8_0"], report["failed"])
                folder = os.path.join(self.tmp, name, "gguf")
                self.assertEqual(sorted(os.listdir(folder)), ["Modelfile", "export.json",
                                                              f"{name}-F16.gguf",
                                                              f"{name}-Q8_0.gguf"])
                # The Ollama Modelfile (its template is test_ollama_modelfile's) uses Q8_0.
                with open(os.path.join(folder, "Modelfile"), encoding="utf-8") as handle:
                    self.assertTrue(handle.read().startswith(f"FROM ./{name}-Q8_0.gguf\n"))
                self.assertEqual(report["modelfile"]["stop"], STOPS.get(name, ["<|eot_id|>"]))
                with open(os.path.join(folder, "export.json"), encoding="utf-8") as handle:
                    self.assertEqual(json.load(handle)["published"], ["F16", "Q8_0"])
                for type_name, entry in report["files"].items():
                    self.assertTrue(entry["template_matches"])
                    self.assertGreaterEqual(entry["tokens_compared"], 10, f"{name} {type_name}")
                    self.assertEqual(entry["tokens_agreed"], entry["tokens_compared"])
                    self.assertLessEqual(entry["max_abs_diff"], entry["tolerance"]["max_abs_diff"])
                reader = gguf.GGUFReader(os.path.join(folder, f"{name}-Q8_0.gguf"))
                kinds = {t.name: t.tensor_type.name for t in reader.tensors}
                attention = "attn_qkv" if name in PHI3 else "attn_q"
                self.assertEqual(kinds[f"blk.0.{attention}.weight"], "Q8_0")
                self.assertEqual(kinds["blk.0.attn_norm.weight"], "F32")
                self.assertEqual("rope_freqs.weight" in kinds, name == "llama3")
                self.assertEqual("output.weight" in kinds, name in ("llama", *PHI3))  # untied
                self.assertEqual("rope_factors_long.weight" in kinds, name == "longrope")
                # longrope: llama.cpp's check ran in a context no larger than the short
                # factors', the note says what past it, and Ollama is held to that context.
                self.assertEqual(report.get("longrope", {}).get("original_context"),
                                 256 if name == "longrope" else None)
                for entry in report["files"].values():
                    self.assertLessEqual(entry["context"], 256 if name == "longrope" else 512)
                with open(os.path.join(folder, "Modelfile"), encoding="utf-8") as handle:
                    self.assertEqual("\nPARAMETER num_ctx 256\n" in handle.read(),
                                     name == "longrope")
                model = reader.get_field("tokenizer.ggml.model").contents()
                self.assertEqual(model, "llama" if name in SPM else "gpt2")

    def test_without_the_rotary_row_order_llama_cpp_disagrees_and_the_file_is_left_out(self):
        """The pairs reordering of q/k is what makes a Llama right in llama.cpp: skipped, the
        check fails, the file is removed, its figures kept, and nothing is published."""
        with mock.patch.object(gguf_export, "_pairwise", lambda weight, heads: weight):
            with self.assertRaises(gguf_export.GgufSkipped) as caught:
                self.export("llama", types=("F16",))
        self.assertIn("no GGUF file passed its check in llama.cpp", str(caught.exception))
        folder = os.path.join(self.tmp, "llama", "gguf")
        self.assertEqual(os.listdir(folder), ["export.json"])
        with open(os.path.join(folder, "export.json"), encoding="utf-8") as handle:
            entry = json.load(handle)["files"]["F16"]
        self.assertFalse(entry["published"])
        self.assertIn("differs by", entry["failure"])

    def test_without_llama3_rope_factors_llama_cpp_disagrees(self):
        with mock.patch.object(gguf_export, "_rope_freqs", lambda config: None):
            with self.assertRaises(gguf_export.GgufSkipped):
                self.export("llama3", types=("F16",))

    def test_longrope_tables_are_the_configs_and_llama_cpp_needs_them_in_order(self):
        """Phi 3's longrope: rope_factors_long and rope_factors_short hold the config's long and
        short factors (float32), beside the short factors' context and the attention factor. In
        the check's context (at most the short factors' 256 tokens) llama.cpp rotates with the
        short table, as transformers does for a sequence that short: written without the tables,
        or with them swapped, the file fails its check. (The tiny model barely feels the attention
        factor, 1.17: its value is checked in the file instead.)"""
        import math

        import gguf
        import numpy as np

        path = os.path.join(self.tmp, "longrope-tables.gguf")
        gguf_export.write_gguf(self.models["longrope"], path, "F16")
        reader = gguf.GGUFReader(path)
        tensors = {t.name: t for t in reader.tensors}
        for name, key in (("rope_factors_long.weight", "long_factor"),
                          ("rope_factors_short.weight", "short_factor")):
            self.assertEqual(tensors[name].tensor_type.name, "F32")
            np.testing.assert_array_equal(np.asarray(tensors[name].data),
                                          np.asarray(LONGROPE[key], dtype=np.float32))
        self.assertEqual(
            reader.get_field("phi3.rope.scaling.original_context_length").contents(), 256)
        self.assertAlmostEqual(reader.get_field("phi3.rope.scaling.attn_factor").contents(),
                               math.sqrt(1 + math.log(2048 / 256) / math.log(256)), places=6)

        real = gguf_export._longrope_tensors

        def swapped(config):
            (long, short), attention = real(config)
            return [(long[0], short[1]), (short[0], long[1])], attention

        for label, spoiled in (("swapped", swapped),
                               ("no tables", lambda config: ([], real(config)[1]))):
            with self.subTest(label), mock.patch.object(gguf_export, "_longrope_tensors", spoiled):
                with self.assertRaises(gguf_export.GgufSkipped) as caught:
                    self.export("longrope", types=("F16",))
                self.assertRegex(str(caught.exception), "differs by|!= PyTorch's")

    def test_in_a_context_past_the_short_factors_llama_cpp_rotates_with_the_long_ones(self):
        """What the export's note says: in a context larger than the short factors' 256 tokens,
        llama.cpp rotates even the check's short prompt with the long factors, where transformers
        uses the short ones up to 256 tokens, so the check (made to ask for 512) fails."""
        log = test_web_export.Log()
        with mock.patch.object(gguf_export, "check_context", lambda prompt, tokens, limit: 512):
            with self.assertRaises(gguf_export.GgufSkipped) as caught:
                gguf_export.export_gguf(self.models["longrope"],
                                        os.path.join(self.tmp, "longrope", "gguf-512"), log,
                                        types=("F16",))
        self.assertIn("llama.cpp made a context of 512 tokens, more than longrope's 256, so it "
                      "used the long factors", str(caught.exception))
        self.assertRegex(str(caught.exception), "differs by|!= PyTorch's")
        self.assertIn("GGUF: Past 256 tokens of context llama.cpp applies the long rope factors to "
                      "the whole sequence (as with llama.cpp's own converter)", log.lines[0])

    def test_phi3s_general_name_says_phi_3_exactly_when_its_tokenizer_strips(self):
        """llama.cpp strips the whitespace after Phi 3's chat tokens (as the tokenizer's rstrip
        does) only for a model whose general.name says Phi-3: the rstrip tokenizer's file (run
        "longrope") is named "longrope (Phi-3)", the other one's (run "phi3") "phi 3", and both
        pass the template check (the family test); named as their runs, the chat template renders
        other ids in llama.cpp and the files are left out."""
        import gguf
        from transformers import AutoTokenizer

        # The rstrip tokenizer drops the "\n" the template writes after <|end|>.
        tokenizer = AutoTokenizer.from_pretrained(self.models["longrope"])
        ids = web_export._prompt_ids(tokenizer)
        end, assistant = tokenizer.convert_tokens_to_ids(["<|end|>", "<|assistant|>"])
        self.assertEqual(ids[ids.index(end) + 1], assistant)
        self.assertIn("<|end|>\n<|assistant|>", tokenizer.apply_chat_template(
            [{"role": "user", "content": "Hi"}], add_generation_prompt=True, tokenize=False))
        for name, written in (("longrope", "longrope (Phi-3)"), ("phi3", "phi 3")):
            with self.subTest(name=name):
                path = os.path.join(self.tmp, f"name-{name}.gguf")
                gguf_export.write_gguf(self.models[name], path, "F16", name=name)
                self.assertEqual(gguf.GGUFReader(path).get_field("general.name").contents(),
                                 written)
                with mock.patch.object(gguf_export, "general_name", lambda name, *_: name):
                    with self.assertRaises(gguf_export.GgufSkipped) as caught:
                        self.export(name, types=("F16",))
                self.assertIn("renders other ids than the tokenizer's", str(caught.exception))
        # llama.cpp's rule needs <unk>, <s>, </s> and <|endoftext|> (it fails to load without).
        with self.assertRaises(gguf_export.GgufSkipped) as caught:
            gguf_export.general_name("run", "phi3", {
                "added_tokens": [{"id": 2, "content": "<|end|>", "rstrip": True}],
                "model": {"vocab": {"<unk>": 0, "<s>": 1}}})
        self.assertIn("lacks </s>, <|endoftext|>", str(caught.exception))
        self.assertEqual(gguf_export.general_name("Phi3-Gemma", "gemma2", {}), "Phi 3-Gemma")

    def test_without_gemmas_norm_offset_llama_cpp_disagrees(self):
        """Gemma's norms scale by 1 + weight, llama.cpp's by the weight: written without the added
        1, the Gemma 2 file fails its check."""
        with mock.patch.object(gguf_export, "PLUS_ONE_NORMS", ()):
            with self.assertRaises(gguf_export.GgufSkipped) as caught:
                self.export("gemma2", types=("F16",))
        self.assertIn("differs by", str(caught.exception))

    def test_without_merge_ranked_scores_llama_cpp_tokenizes_the_prompt_otherwise(self):
        """llama.cpp's SentencePiece tokenizer merges by score: with every score equal (as the
        package's LlamaHfVocab leaves them) the chat template's text gets other ids than the
        Hugging Face tokenizer's, and the file is left out."""
        real = gguf_export.spm_tokenizer

        def unscored(merged_dir, tokenizer_json):
            vocab = real(merged_dir, tokenizer_json)
            return gguf_export.SpmVocab([(text, 0.0, kind) for text, _, kind in vocab.entries],
                                        vocab.add_space_prefix)

        with mock.patch.object(gguf_export, "spm_tokenizer", unscored):
            with self.assertRaises(gguf_export.GgufSkipped) as caught:
                self.export("gemma2", types=("F16",))
        self.assertIn("renders other ids than the tokenizer's", str(caught.exception))

    def test_a_run_with_gguf_writes_checked_files_and_a_family_it_lacks_says_why(self):
        import finetune
        import test_support
        from tiny_models import make_tiny_model

        data = test_support.write_json(os.path.join(self.tmp, "data.json"), [
            {"prompt": "Where is the harbour?", "completion": "By the mill."}] * 2)
        out = os.path.join(self.tmp, "run")
        code, stdout, stderr = test_support.call_main(finetune.main, [
            "--base_model", self.models["llama"], "--data_file", data, "--output_dir", out,
            "--max_steps", "1", "--eval_fraction", "0", "--no-web-export", "--gguf", "Q8_0"])
        self.assertEqual(code, 0, stdout[-2000:] + stderr[-2000:])
        self.assertIn(f"GGUF for llama.cpp (Q8_0) in {os.path.join(out, 'gguf')}", stdout)
        self.assertEqual(sorted(os.listdir(os.path.join(out, "gguf"))),
                         ["Modelfile", "export.json", "run-Q8_0.gguf"])
        self.assertIn("Ollama Modelfile: FROM run-Q8_0.gguf, stop <|eot_id|>", stdout)

        # A family the GGUF writer lacks (every family the trainer has is written, so one is taken
        # out of the writer's table): the run says why, and its browser export stands.
        gemma = make_tiny_model("gemma3", os.path.join(self.tmp, "gemma3"))
        out = os.path.join(self.tmp, "run-gemma3")
        with mock.patch.dict(gguf_export.ARCHES):
            del gguf_export.ARCHES["gemma3_text"]
            code, stdout, stderr = test_support.call_main(finetune.main, [
                "--base_model", gemma, "--data_file", data, "--output_dir", out,
                "--max_steps", "1", "--eval_fraction", "0", "--web_variants", "fp32",
                "--gguf", "both"])
        self.assertEqual(code, 0, stdout[-2000:] + stderr[-2000:])  # trained and saved
        self.assertIn(f"browser-ready model in {os.path.join(out, 'web')}", stdout)
        with open(os.path.join(out, "web", "export.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["published"], ["fp32"])
        self.assertIn("GGUF skipped: the GGUF writer handles model types llama, qwen2, qwen3, "
                      "gemma2, phi3, and this one is 'gemma3_text'", stdout)
        with open(os.path.join(out, "gguf.skipped.json"), encoding="utf-8") as handle:
            self.assertIn("'gemma3_text'", json.load(handle)["reason"])
        self.assertFalse(os.path.exists(os.path.join(out, "gguf")))

    def test_what_it_refuses_with_the_reason(self):
        from model_folder import read_json

        llama, gemma2, phi3, gemma3 = (read_json(os.path.join(self.models[name], "config.json"))
                                       for name in ("llama", "gemma2", "phi3", "gemma3"))
        for config in (llama, gemma2, phi3, gemma3):
            self.assertIsNone(gguf_export.gguf_problem(config))
        longrope = read_json(os.path.join(self.models["longrope"], "config.json"))
        self.assertIsNone(gguf_export.gguf_problem(longrope))
        rope = longrope["rope_parameters"]
        for config, words in (
                (dict(llama, model_type="mistral"), "model types llama, qwen2, qwen3, "
                 "gemma2, gemma3_text, phi3, and this one is 'mistral'"),
                (dict(llama, rope_parameters={"rope_type": "dynamic", "factor": 2.0}),
                 "rope type 'dynamic'"),
                (dict(llama, quantization_config={"quant_method": "gptq"}), "already quantized"),
                # The tiny Gemma2Config's default (256) with head_dim 16: llama.cpp scales by 16.
                (dict(gemma2, query_pre_attn_scalar=256), "query_pre_attn_scalar 256 differs "
                 "from what llama.cpp scales Gemma 2's queries by (16: head_dim"),
                (dict(gemma2, final_logit_softcapping=None), "final_logit_softcapping is not set"),
                (dict(gemma2, layer_types=["full_attention"] * 2),
                 "layer_types is not a sliding-window layer then a full one, in turn"),
                (dict(phi3, rope_parameters=LLAMA3_ROPE), "rope type 'llama3' is not one the GGUF "
                 "writer writes for phi3 (default, longrope)"),
                (dict(llama, rope_parameters=rope), "rope type 'longrope' is not one the GGUF "
                 "writer writes for llama (default, llama3)"),
                (dict(longrope, rope_parameters=dict(rope, short_factor=[1.0] * 16)),
                 "longrope's short_factor has 16 values, and llama.cpp needs 8 positive numbers"),
                (dict(longrope, rope_parameters=dict(rope, long_factor=None)),
                 "longrope's long_factor has no list"),
                (dict(longrope, original_max_position_embeddings=None, rope_parameters={
                    k: v for k, v in rope.items() if k != "original_max_position_embeddings"}),
                 "longrope has no original_max_position_embeddings"),
                (dict(gemma3, attn_logit_softcapping=50.0), "llama.cpp does not soft-cap Gemma 3"),
                (dict(gemma3, query_pre_attn_scalar=256), "Gemma 3's queries by (16: head_dim"),
                (dict(gemma3, rope_parameters=dict(GEMMA3_ROPE, sliding_attention={
                    "rope_type": "default", "rope_theta": 1e6})), "is not the unscaled base 10000"),
                (dict(gemma3, rope_parameters=dict(GEMMA3_ROPE, full_attention={
                    "rope_type": "yarn", "factor": 8.0})), "rope type 'yarn' of the full-attention"),
                (dict(gemma3, layer_types=["sliding_attention", "full_attention"] * 3),
                 "is not 5 sliding-window layers then a full one")):
            self.assertIn(words, gguf_export.gguf_problem(config))
        # The real 27B's scale (hidden_size / heads, 46 layers) is what llama.cpp uses for it.
        self.assertIsNone(gguf_export.gguf_problem(dict(
            gemma2, num_hidden_layers=46, layer_types=None, query_pre_attn_scalar=16.0)))
        with self.assertRaises(gguf_export.GgufSkipped) as caught:
            gguf_export.pre_tokenizer({"pre_tokenizer": {"type": "Split", "pattern": {
                "Regex": "\\w+"}}})
        self.assertIn("llama.cpp has no name for", str(caught.exception))
        with mock.patch.dict(os.environ, {"LLAMA_RUNTIME_DIR": os.path.join(self.tmp, "none")}):
            with self.assertRaises(gguf_export.GgufSkipped) as caught:
                self.export("llama")
            self.assertIn("npm run llama:setup", str(caught.exception))
        self.assertIn("unknown GGUF types", _cli_error(["a", "b", "--types", "Q4_K"]))
        with self.assertRaises(gguf_export.GgufSkipped) as caught:
            gguf_export.export_gguf(os.path.join(self.tmp, "gone"), os.path.join(self.tmp, "o"),
                                    print)
        self.assertIn("has no config.json", str(caught.exception))

    def test_a_tokenizer_without_what_gguf_needs_is_refused_naming_the_piece(self):
        def without_tokenizer_json(folder):
            os.remove(os.path.join(folder, "tokenizer.json"))

        def edit(change):
            def edited(folder):
                path = os.path.join(folder, "tokenizer.json")
                with open(path, encoding="utf-8") as handle:
                    tokenizer = json.load(handle)
                change(tokenizer)
                with open(path, "w", encoding="utf-8") as handle:
                    json.dump(tokenizer, handle)
            return edited

        def metaspace_first(tokenizer):
            tokenizer["normalizer"] = {"type": "Replace", "pattern": {"String": " "},
                                       "content": "\u2581"}
            tokenizer["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                                          "prepend_scheme": "first", "split": False}

        def renamed_end_of_sequence(tokenizer):  # a Phi 3 rstrip tokenizer without "</s>"
            tokenizer["model"]["vocab"]["<eos>"] = tokenizer["model"]["vocab"].pop("</s>")
            for added in tokenizer["added_tokens"]:
                if added["content"] == "</s>":
                    added["content"] = "<eos>"

        for name, source, spoil, words in (
                ("phi3-rstrip-no-end", "longrope", edit(renamed_end_of_sequence),
                 "which llama.cpp does for a model named Phi-3 only with <unk>, <s>, </s>, "
                 "<|endoftext|> in the vocabulary, and it lacks </s>"),
                ("no-tokenizer-json", "llama", without_tokenizer_json,
                 "has no tokenizer.json, which the GGUF writer reads the vocabulary from"),
                ("unigram", "llama", edit(lambda t: t["model"].update(type="Unigram")),
                 "the tokenizer's model (tokenizer.json model.type) is 'Unigram'"),
                ("byte-fallback", "llama", edit(lambda t: t["model"].update(byte_fallback=True)),
                 "byte fallback (tokenizer.json model.byte_fallback) but no ByteFallback decoder"),
                ("no-merges", "llama", edit(lambda t: t["model"].update(merges=[])),
                 "no merges (tokenizer.json model.merges)"),
                ("spm-no-byte-token", "gemma2", edit(lambda t: t["model"]["vocab"].pop("<0x41>")),
                 "lacks 1 of its 256 byte tokens (first: <0x41>)"),
                ("spm-no-merges", "phi3", edit(lambda t: t["model"].update(merges=[])),
                 "no merges (tokenizer.json model.merges)"),
                ("spm-prefix-first", "phi3", edit(metaspace_first),
                 "Metaspace prepend_scheme 'first'), and llama.cpp puts it after every special "
                 "token as well"),
                ("spm-nfkc", "gemma2", edit(lambda t: t.update(normalizer={"type": "NFKC"})),
                 "normalizer step 'NFKC' (tokenizer.json normalizer) is not one llama.cpp's")):
            with self.subTest(name=name):
                merged = os.path.join(self.tmp, f"tokenizer-{name}", "merged")
                shutil.copytree(self.models[source], merged)
                spoil(merged)
                out = os.path.join(self.tmp, f"tokenizer-{name}", "gguf")
                with self.assertRaises(gguf_export.GgufSkipped) as caught, _no_reference_run():
                    gguf_export.export_gguf(merged, out, test_web_export.Log())
                self.assertIn(words, str(caught.exception))
                self.assertFalse(os.path.exists(out) or os.path.exists(out + ".partial"))
                with self.assertRaises(gguf_export.GgufSkipped) as caught:
                    gguf_export.write_gguf(merged, out + ".gguf", "F16")
                self.assertIn(words, str(caught.exception))

    def test_the_file_sizes_are_estimated_within_a_few_percent_at_real_shapes(self):
        """gguf_bytes against the files `npm run bench:export -- --gguf` wrote for the published
        configs (docs/BENCHMARKS.md, GGUF) with the repo's tiny tokenizer and the real vocabulary
        size: Llama 3.2 1B (16 layers of 2048, tied embeddings) and DeepSeek R1 Distill Qwen 1.5B
        (28 layers of 1536, q/k/v biases, untied). Never below them: the disk check relies on it."""
        from tiny_models import copy_tokenizer

        folder = os.path.join(self.tmp, "bench-tokenizer")
        copy_tokenizer(folder)
        llama_1b = {"parameters": 1_235_814_400, "vectors": 16 * 2 * 2048 + 2048,
                    "metadata": gguf_export.metadata_bytes(folder, 128_256)}
        r1_15b = {"parameters": 1_777_088_000, "vectors": 28 * (2 * 1536 + 1536 + 2 * 256) + 1536,
                  "metadata": gguf_export.metadata_bytes(folder, 151_936)}
        for stats, type_name, published in (
                (llama_1b, "F16", 2_475_127_808), (llama_1b, "Q8_0", 1_316_615_168),
                (r1_15b, "F16", 3_558_479_520), (r1_15b, "Q8_0", 1_892_595_360)):
            estimate = gguf_export.gguf_bytes(stats, type_name)
            self.assertGreaterEqual(estimate, published, type_name)
            self.assertLess(estimate / published - 1, 0.02, (type_name, estimate, published))
        stats = llama_1b
        self.assertEqual(gguf_export.disk_needed(stats, ("F16", "Q8_0")), int(1.05 * (
            gguf_export.gguf_bytes(stats, "F16") + gguf_export.gguf_bytes(stats, "Q8_0"))))
        # And the tiny model's real files (both types) never exceed the estimate.
        stats = web_export.weight_stats(self.models["llama"])
        stats["metadata"] = gguf_export.metadata_bytes(self.models["llama"], 554)
        for type_name in gguf_export.TYPES:
            path = os.path.join(self.tmp, f"estimate-{type_name}.gguf")
            written = gguf_export.write_gguf(self.models["llama"], path, type_name)
            self.assertLessEqual(written["bytes"], gguf_export.gguf_bytes(stats, type_name))

    def test_too_little_disk_is_refused_before_anything_is_written(self):
        """On a real filesystem too small for the files: refused with both figures before the
        PyTorch reference run, nothing written; a run asked for GGUF there keeps its model and
        says why in gguf.skipped.json."""
        import finetune
        import test_support

        # The run (LoRA of rank 1, so that its checkpoint is small) peaks at about 0.85 MB here and
        # leaves 0.7 MB (merged/, the adapter, the tokenizer, its card); both GGUF types of its
        # model take about 0.6 MB more.
        with test_web_export.small_disk(self, os.path.join(self.tmp, "small-disk"),
                                        "1000k") as mount:
            data = test_support.write_json(os.path.join(self.tmp, "disk-data.json"), [
                {"prompt": "Where is the harbour?", "completion": "By the mill."}] * 2)
            run = os.path.join(mount, "run")
            code, stdout, stderr = test_support.call_main(finetune.main, [
                "--base_model", self.models["llama"], "--data_file", data, "--output_dir", run,
                "--max_steps", "1", "--eval_fraction", "0", "--lora_r", "1", "--no-web-export",
                "--gguf", "both"])
            self.assertEqual(code, 0, stdout[-2000:] + stderr[-2000:])
            reason = rf"needs about 0\.6 MB free in {run}; 0\.\d MB free"
            self.assertRegex(stdout, "GGUF skipped: " + reason)
            with open(os.path.join(run, "gguf.skipped.json"), encoding="utf-8") as handle:
                self.assertRegex(json.load(handle)["reason"], f"^{reason}$")
            self.assertFalse(os.path.exists(os.path.join(run, "gguf")))
            self.assertFalse(os.path.exists(os.path.join(run, "gguf.partial")))
            self.assertTrue(os.path.isfile(os.path.join(run, "merged", "model.safetensors")))

            # export_gguf itself, on what is left of that disk.
            out = os.path.join(mount, "gguf")
            with self.assertRaises(gguf_export.GgufSkipped) as caught, _no_reference_run():
                gguf_export.export_gguf(self.models["llama"], out, test_web_export.Log())
            self.assertRegex(str(caught.exception),
                             rf"^needs about 0\.6 MB free in {mount}; 0\.\d MB free$")
            self.assertEqual(os.listdir(mount), ["run"])


def _no_reference_run():
    """Fails the test if the export gets as far as its (slow) PyTorch reference run."""
    return mock.patch.object(web_export, "reference_run",
                             side_effect=AssertionError("the reference run started"))


def _cli_error(argv: list[str]) -> str:
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), self_exit():
        gguf_export.main(argv)
    return err.getvalue()


class self_exit:  # noqa: N801 - a context manager that swallows argparse's SystemExit
    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        return kind is SystemExit


if __name__ == "__main__":
    unittest.main()
