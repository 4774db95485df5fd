"""training/ollama_modelfile.py: the Modelfile's TEMPLATE, run by Go's own text/template (as
Ollama runs it; training/testdata/ollama_render.go), renders the same text as the model's chat
template through its tokenizer, for single and multi-turn conversations, with and without a system
message, for templates laid out as Llama 3, ChatML with a default system prompt, Gemma (no system
turn) and Phi 3 (an end-of-text after a conversation that is not prompted); what it refuses.

Needs Go (Debian: golang-go; .ci/run installs it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ollama_modelfile  # noqa: E402
import tiny_models  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RENDERER = os.path.join(HERE, "testdata", "ollama_render.go")

CHATML = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{%- if not (loop.first and message['role'] == 'system') %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")
GEMMA = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if message['role'] == 'assistant' %}{% set role = 'model' %}"
    "{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}")
PHI3 = (
    "{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{ '<|system|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{% elif message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{% elif message['role'] == 'assistant' %}"
    "{{ '<|assistant|>\\n' + message['content'] + '<|end|>\\n' }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}")
NUMBERED = (
    "{% for message in messages %}{{ 'Turn ' + loop.index|string + ' ' + message['role'] + ': ' "
    "+ message['content'] + '\\n' }}{% endfor %}{% if add_generation_prompt %}"
    "{{ 'assistant: ' }}{% endif %}")

# name: (template or None for the tiny tokenizer's own, special tokens the template uses)
TEMPLATES = {
    "llama3": (None, []),
    "chatml": (CHATML, ["<|im_start|>", "<|im_end|>"]),
    "gemma": (GEMMA, ["<start_of_turn>", "<end_of_turn>"]),
    "phi3": (PHI3, ["<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]),
}

CONVERSATIONS = [
    [{"role": "user", "content": "Hello there"}],
    [{"role": "system", "content": "Be brief.\nAnswer in English."},
     {"role": "user", "content": "What is 2+2?"}],
    [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue."},
     {"role": "user", "content": "And {{ another }} one, with \"quotes\"?"}],
    [{"role": "system", "content": "You answer in lists."},
     {"role": "user", "content": "Two fruits?"},
     {"role": "assistant", "content": "- apple\n- pear"},
     {"role": "user", "content": "Two more."}],
    # An open reply that the model continues.
    [{"role": "user", "content": "Count to three."}, {"role": "assistant", "content": "One, two,"}],
]


def make_model_folder(dest: str, template: str | None, tokens: list[str]):
    """The repo's tiny tokenizer in dest, with `template` as its chat template and `tokens` added
    as special tokens; returns the tokenizer."""
    from transformers import AutoTokenizer

    tokenizer = tiny_models.copy_tokenizer(dest)
    if tokens:
        tokenizer.add_special_tokens({"additional_special_tokens": tokens})
    if template is not None:
        tokenizer.chat_template = template
    tokenizer.save_pretrained(dest)
    return AutoTokenizer.from_pretrained(dest)


def build_renderer(folder: str) -> str:
    """training/testdata/ollama_render.go built into folder; its path."""
    if not shutil.which("go"):
        raise RuntimeError("Go is not installed (Debian: apt-get install golang-go); the test "
                           "renders the Modelfile's template with Go's text/template, as Ollama does")
    binary = os.path.join(folder, "ollama_render")
    subprocess.run(["go", "build", "-o", binary, RENDERER], check=True, timeout=600)
    return binary


def render_in_go(renderer: str, modelfile: str, conversations: list[list[dict]]) -> list[str]:
    done = subprocess.run([renderer], input=json.dumps(
        {"modelfile": modelfile, "conversations": conversations}), capture_output=True, text=True,
        timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"Go could not render the template: {done.stderr.strip()}")
    return json.loads(done.stdout)


def jinja_render(tokenizer, messages: list[dict]) -> str:
    open_reply = messages[-1]["role"] == "assistant"
    return tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=not open_reply,
                                         continue_final_message=open_reply)


class ModelfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.mkdtemp(prefix="ollama-modelfile-test.")
        cls.renderer = build_renderer(cls.tmp)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def folder(self, name: str, template: str | None, tokens: list[str]):
        dest = os.path.join(self.tmp, name)
        return dest, make_model_folder(dest, template, tokens)

    def test_the_template_renders_as_the_tokenizer_in_go_for_each_layout(self):
        for name, (template, tokens) in TEMPLATES.items():
            with self.subTest(template=name):
                folder, tokenizer = self.folder(name, template, tokens)
                for adds_bos in (False, True):
                    text, info = ollama_modelfile.modelfile_text(folder, "m.gguf", adds_bos)
                    conversations = [c for c in CONVERSATIONS
                                     if info["system_turn"] or c[0]["role"] != "system"]
                    expected = [jinja_render(tokenizer, c) for c in conversations]
                    if adds_bos and tokenizer.bos_token:
                        expected = [e.removeprefix(tokenizer.bos_token) for e in expected]
                    self.assertEqual(render_in_go(self.renderer, text, conversations), expected)
                self.assertEqual(info["system_turn"], name != "gemma")
                self.assertTrue(text.startswith("FROM ./m.gguf\n"))

    def test_the_published_templates_of_the_apps_families_render_the_same_in_go(self):
        """The chat templates TRL ships for the real models (Llama 3.2 with its dated system
        header, DeepSeek R1 Distill's thinking prompt, Qwen 2.5's default system prompt, Gemma,
        Gemma 3, Phi 3.5) give Modelfiles whose Go rendering equals theirs; Qwen 3's, which
        renders the last reply otherwise than earlier ones, is refused with the reason."""
        import trl

        folder = os.path.join(os.path.dirname(trl.__file__), "chat_templates")
        for name in ("llama3_2", "deepseek_r1_distill", "qwen2_5", "gemma", "gemma3", "phi3_5"):
            with self.subTest(template=name):
                with open(os.path.join(folder, f"{name}.jinja"), encoding="utf-8") as handle:
                    dest, tokenizer = self.folder(f"trl-{name}", handle.read(), [])
                text, info = ollama_modelfile.modelfile_text(dest, "m.gguf", False)
                conversations = [c for c in CONVERSATIONS
                                 if info["system_turn"] or c[0]["role"] != "system"]
                self.assertGreaterEqual(len(conversations), 3)
                self.assertEqual(render_in_go(self.renderer, text, conversations),
                                 [jinja_render(tokenizer, c) for c in conversations])
        with open(os.path.join(folder, "qwen3.jinja"), encoding="utf-8") as handle:
            dest, _ = self.folder("trl-qwen3", handle.read(), [])
        with self.assertRaisesRegex(ollama_modelfile.ModelfileSkipped, "rewrites earlier turns"):
            ollama_modelfile.modelfile_text(dest, "m.gguf", False)

    def test_stop_tokens_are_the_end_of_turn_and_the_end_of_sequence(self):
        cases = {"llama3": ["<|eot_id|>"], "chatml": ["<|im_end|>"],
                 "gemma": ["<end_of_turn>"], "phi3": ["<|end|>"]}
        for name, (template, tokens) in TEMPLATES.items():
            with self.subTest(template=name):
                folder, tokenizer = self.folder(name, template, tokens)
                text, info = ollama_modelfile.modelfile_text(folder, "m.gguf", True)
                expected = cases[name] + ([tokenizer.eos_token] if tokenizer.eos_token
                                          not in cases[name] else [])
                self.assertEqual(info["stop"], expected)
                for stop in expected:
                    self.assertIn(f'PARAMETER stop "{stop}"\n', text)

    def test_the_bases_sampling_settings_become_parameters(self):
        folder, _ = self.folder("sampling", None, [])
        with open(os.path.join(folder, "generation_config.json"), "w", encoding="utf-8") as handle:
            json.dump({"do_sample": True, "temperature": 0.6, "top_p": 0.9}, handle)
        text, info = ollama_modelfile.modelfile_text(folder, "m.gguf", True)
        self.assertEqual(info["parameters"], {"temperature": 0.6, "top_p": 0.9})
        self.assertIn("PARAMETER temperature 0.6\nPARAMETER top_p 0.9\n", text)

    def test_what_it_refuses_with_the_reason(self):
        folder, _ = self.folder("numbered", NUMBERED, [])
        with self.assertRaisesRegex(ollama_modelfile.ModelfileSkipped,
                                    "otherwise than message by message"):
            ollama_modelfile.modelfile_text(folder, "m.gguf", False)
        folder, tokenizer = self.folder("no-template", None, [])
        tokenizer.chat_template = None
        tokenizer.save_pretrained(folder)
        for leftover in ("chat_template.jinja",):
            path = os.path.join(folder, leftover)
            if os.path.exists(path):
                os.remove(path)
        with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
        config.pop("chat_template", None)
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        with self.assertRaisesRegex(ollama_modelfile.ModelfileSkipped, "has no chat template"):
            ollama_modelfile.modelfile_text(folder, "m.gguf", False)
        folder, _ = self.folder("quotes", '{{ "\\"\\"\\"" }}{% for m in messages %}'
                                "{{ m['content'] }}{% endfor %}", [])
        with self.assertRaisesRegex(ollama_modelfile.ModelfileSkipped, "cannot quote"):
            ollama_modelfile.modelfile_text(folder, "m.gguf", False)


if __name__ == "__main__":
    unittest.main()
