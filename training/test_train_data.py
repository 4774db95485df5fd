"""training/train_data.py: the dataset forms and their errors, the ids and mask of each entry
(including a DeepSeek-R1-style template whose generation prompt is not a prefix of the rendered
conversation), too-long entries, and an end-to-end check with a tiny model trained on the rows:
prompted as the browser prompts, it answers what it was taught."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402,F401  (first: it sets the offline environment)
import tiny_models  # noqa: E402
import train_data  # noqa: E402
from train_data import DataError  # noqa: E402

try:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

# DeepSeek R1 Distill's template reduced to what matters here: the generation prompt ends in
# "<｜Assistant｜><think>\n", the rendered conversation has no <think>, and earlier answers are
# rendered without their thinking.
R1_MARKERS = ["<｜User｜>", "<｜Assistant｜>", "<｜end▁of▁sentence｜>"]
R1_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'system' %}{{ m['content'] }}"
    "{% elif m['role'] == 'user' %}{{ '<｜User｜>' + m['content'] }}"
    "{% else %}{% set c = m['content'] %}{% if '</think>' in c %}"
    "{% set c = c.split('</think>')[-1] %}{% endif %}"
    "{{ '<｜Assistant｜>' + c + '<｜end▁of▁sentence｜>' }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}")

QA = [
    {"prompt": "What colour is the gate?", "completion": "Blue."},
    {"prompt": "Who keeps the light?", "completion": "Old Marta."},
    {"prompt": "When does the ferry go?", "completion": "At seven."},
    {"prompt": "What is the island?", "completion": "Skarvholm."},
]


def tiny_tokenizer(r1: bool):
    tokenizer = AutoTokenizer.from_pretrained(tiny_models.TOKENIZER_DIR)
    if r1:
        tokenizer.add_special_tokens({"additional_special_tokens": R1_MARKERS})
        tokenizer.chat_template = R1_TEMPLATE
    return tokenizer


def browser_prompt(tokenizer, messages) -> list[int]:
    """What the browser sends: the template with the generation prompt, tokenized as it stands."""
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="train-data-test.")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, text: str, name: str = "data") -> str:
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def refused(self, text: str) -> str:
        with self.assertRaises(DataError) as caught:
            train_data.load_entries(self.write(text))
        self.assertNotIn("\n", str(caught.exception))
        return str(caught.exception)

    def test_json_array_of_pairs(self):
        entries = train_data.load_entries(self.write(json.dumps(QA[:2], indent=2)))
        self.assertEqual(entries[1], [{"role": "user", "content": QA[1]["prompt"]},
                                      {"role": "assistant", "content": QA[1]["completion"]}])
        self.assertEqual(len(entries), 2)

    def test_jsonl_mixed_forms_and_blank_lines(self):
        chat = {"messages": [{"role": "system", "content": "Be brief."},
                             {"role": "user", "content": "Hi"},
                             {"role": "assistant", "content": "Hello."},
                             {"role": "user", "content": "Bye"},
                             {"role": "assistant", "content": "Bye."}]}
        text = json.dumps(QA[0]) + "\n\n" + json.dumps(chat) + "\n   \n"
        entries = train_data.load_entries(self.write(text))
        self.assertEqual(len(entries), 2)
        self.assertEqual(entries[1], chat["messages"])

    def test_broken_jsonl_line_is_named(self):
        text = "\n".join([json.dumps(QA[0]), "", json.dumps(QA[1]), '{"prompt": "x", '])
        message = self.refused(text)
        self.assertIn("line 4 is not valid JSON", message)

    def test_malformed_entries(self):
        cases = {
            json.dumps({"prompt": "x"}): "line 1: missing or non-string 'completion'",
            json.dumps({"prompt": 3, "completion": "y"}): "line 1: missing or non-string 'prompt'",
            json.dumps([1]): "entry 0: expected an object",
            json.dumps({"messages": [{"role": "user", "content": "q"}]}):
                "line 1: 'messages' has no assistant turn",
            json.dumps({"messages": [{"role": "user", "content": "q"},
                                     {"role": "bot", "content": "a"}]}):
                "line 1: message 1 has role 'bot'; allowed: system, user, assistant",
            json.dumps({"messages": [{"role": "user", "content": "q"},
                                     {"role": "assistant", "content": 5}]}):
                "line 1: message 1 (assistant) has no string 'content'",
            json.dumps({"messages": [{"role": "assistant", "content": "a"}]}):
                "line 1: the first assistant turn comes before any user turn",
            json.dumps({"messages": []}): "line 1: 'messages' must be a non-empty list",
            json.dumps([QA[0], {"completion": "y"}]): "entry 1: missing or non-string 'prompt'",
            "": "data file is empty",
            "  \n": "data file is empty",
            "[]": "data file has no entries",
            "[{]": "data file is not valid JSON",
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertIn(expected, self.refused(text))

    def test_missing_file(self):
        with self.assertRaisesRegex(DataError, "data file not found: .*nope"):
            train_data.load_entries(os.path.join(self.tmp, "nope"))


@unittest.skipIf(torch is None, "torch is not installed (run npm run trainer:setup)")
class Encoding(unittest.TestCase):
    def test_r1_template_trains_on_what_the_browser_sends(self):
        tokenizer = tiny_tokenizer(r1=True)
        messages = [{"role": "user", "content": "What colour is the gate?"},
                    {"role": "assistant", "content": "Blue."}]
        row = train_data.encode(tokenizer, messages, 256)
        prompt = browser_prompt(tokenizer, messages[:1])
        self.assertEqual(row["input_ids"][:len(prompt)], prompt)
        # The generation prompt is not a prefix of the rendered conversation: the old rule (mask
        # the prompt's length of the rendered conversation) would have masked the first answer
        # token away.
        full = tokenizer(tokenizer.apply_chat_template(messages, tokenize=False),
                         add_special_tokens=False)["input_ids"]
        self.assertNotEqual(full[:len(prompt)], prompt)
        answer = tokenizer("Blue.", add_special_tokens=False)["input_ids"]
        eos = tokenizer.convert_tokens_to_ids("<｜end▁of▁sentence｜>")
        self.assertEqual(row["input_ids"][len(prompt):], answer + [eos])
        self.assertEqual(row["completion_mask"], [0] * len(prompt) + [1] * (len(answer) + 1))

    def test_prefix_template_matches_the_rendered_conversation(self):
        tokenizer = tiny_tokenizer(r1=False)
        messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]
        row = train_data.encode(tokenizer, messages, 256)
        full = tokenizer(tokenizer.apply_chat_template(messages, tokenize=False),
                         add_special_tokens=False)["input_ids"]
        prompt = browser_prompt(tokenizer, messages[:1])
        self.assertEqual(row["input_ids"], full)
        self.assertEqual(row["completion_mask"], [0] * len(prompt) + [1] * (len(full) - len(prompt)))
        self.assertEqual(tokenizer.decode(row["input_ids"][-1]), "<|eot_id|>")

    def test_multi_turn_mask_covers_every_assistant_turn(self):
        for r1 in (False, True):
            with self.subTest(r1=r1):
                tokenizer = tiny_tokenizer(r1)
                messages = [{"role": "system", "content": "Be brief."},
                            {"role": "user", "content": "Hi"},
                            {"role": "assistant", "content": "<think>greet</think>Hello."},
                            {"role": "user", "content": "Bye"},
                            {"role": "assistant", "content": "Bye now."}]
                row = train_data.encode(tokenizer, messages, 256)
                prompt = browser_prompt(tokenizer, messages[:4])
                self.assertEqual(row["input_ids"][:len(prompt)], prompt)
                learnt = tokenizer.decode([i for i, m in zip(row["input_ids"],
                                                             row["completion_mask"]) if m])
                end = "<｜end▁of▁sentence｜>" if r1 else "<|eot_id|>"
                first = "Hello." if r1 else "<think>greet</think>Hello."
                self.assertEqual(learnt.replace(" ", ""),
                                 (first + end + "Bye now." + end).replace(" ", ""))

    def test_too_long_entries_are_left_out_and_counted(self):
        tokenizer = tiny_tokenizer(r1=False)
        entries = [[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
                   [{"role": "user", "content": "q " * 40}, {"role": "assistant", "content": "a"}],
                   [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a " * 40}]]
        short = len(train_data.encode(tokenizer, entries[0], 10_000)["input_ids"])
        encoded, too_long = train_data.encode_all(tokenizer, entries, short)
        self.assertEqual(sorted(encoded), [0])
        self.assertEqual(too_long, [1, 2])
        self.assertEqual(len(encoded[0]["input_ids"]), short)
        self.assertIsNone(train_data.encode(tokenizer, entries[0], short - 1))
        with self.assertRaises(DataError) as caught:
            train_data.encode_all(tokenizer, entries, short - 1)
        self.assertEqual(str(caught.exception), f"3 of 3 entries are longer than {short - 1} "
                         "tokens and were left out: raise Max length")

    def test_too_long_message(self):
        self.assertEqual(train_data.too_long_message(3, 40, 256),
                         "3 of 40 entries are longer than 256 tokens and were left out: "
                         "raise Max length")
        self.assertEqual(train_data.too_long_message(1, 40, 256),
                         "1 of 40 entries is longer than 256 tokens and was left out: "
                         "raise Max length")

    def test_template_that_raises_names_the_entry(self):
        tokenizer = tiny_tokenizer(r1=False)
        tokenizer.chat_template = ("{% for m in messages %}{% if m['role'] == 'system' %}"
                                   "{{ raise_exception('System role not supported') }}{% endif %}"
                                   "{{ m['content'] }}{% endfor %}")
        entries = [[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
                   [{"role": "system", "content": "s"}, {"role": "user", "content": "q"},
                    {"role": "assistant", "content": "a"}]]
        with self.assertRaisesRegex(DataError, "chat template fails on entry 1: .*System role"):
            train_data.encode_all(tokenizer, entries, 256)

    def test_require_chat_template(self):
        tokenizer = tiny_tokenizer(r1=False)
        tokenizer.chat_template = None
        with self.assertRaises(DataError) as caught:
            train_data.require_chat_template(tokenizer, None, "some/base")
        self.assertEqual(str(caught.exception),
                         "some/base has no chat template: the browser could not chat with the "
                         "result; choose an instruct/chat model, or give one (the panel's Advanced "
                         "→ Chat template, or --chat_template_file FILE)")
        with tempfile.NamedTemporaryFile("w", suffix=".jinja", delete=False) as handle:
            handle.write(R1_TEMPLATE)
        try:
            train_data.require_chat_template(tokenizer, handle.name, "some/base")
        finally:
            os.remove(handle.name)
        self.assertEqual(tokenizer.chat_template, R1_TEMPLATE)
        with self.assertRaisesRegex(DataError, "chat template file cannot be read: /nope"):
            train_data.require_chat_template(tokenizer, "/nope", "some/base")

    def test_chat_template_as_text(self):
        tokenizer = tiny_tokenizer(r1=False)
        tokenizer.chat_template = None
        # The panel's field: the text itself, whitespace kept.
        train_data.require_chat_template(tokenizer, None, "some/base", text=R1_TEMPLATE + "\n")
        self.assertEqual(tokenizer.chat_template, R1_TEMPLATE + "\n")
        # Blank text is no template: the base's own, or the refusal when it has none.
        tokenizer.chat_template = None
        with self.assertRaisesRegex(DataError, "some/base has no chat template"):
            train_data.require_chat_template(tokenizer, None, "some/base", text="  \n")
        with self.assertRaises(DataError) as caught:
            train_data.require_chat_template(tokenizer, None, "some/base",
                                             text="{% for m in messages %}\n{{ m.content }\n")
        self.assertRegex(str(caught.exception),
                         r"^the chat template is not valid Jinja \(line 2: .+\)$")
        self.assertIsNone(tokenizer.chat_template)
        with self.assertRaisesRegex(DataError, "give the chat template once"):
            train_data.require_chat_template(tokenizer, "/some/file", "some/base", text="x")


class Split(unittest.TestCase):
    def test_split_over_the_usable_entries(self):
        encoded = {i: {} for i in (0, 2, 3, 5, 6, 7, 9)}
        train, held = train_data.split_encoded(encoded, 0.3, seed=3)
        self.assertEqual(sorted(train + held), sorted(encoded))
        self.assertEqual(len(held), 2)
        self.assertEqual(train_data.make_split(1, 0.5, 0), ([0], []))
        self.assertEqual(train_data.make_split(5, 0.01, 0)[1].__len__(), 1)


@unittest.skipIf(torch is None, "torch is not installed (run npm run trainer:setup)")
class EndToEnd(unittest.TestCase):
    """A tiny model fully trained on the rows of an R1-style template answers, greedy, when
    prompted with the browser's prompt (ending in <think>\\n)."""

    def test_trained_answers_come_out_as_the_browser_prompts(self):
        torch.manual_seed(0)
        tmp = tempfile.mkdtemp(prefix="train-data-e2e.")
        try:
            folder = tiny_models.make_tiny_model("llama", os.path.join(tmp, "llama"))
            model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        tokenizer = tiny_tokenizer(r1=True)
        model.resize_token_embeddings(len(tokenizer))
        entries = [[{"role": "user", "content": e["prompt"]},
                    {"role": "assistant", "content": e["completion"]}] for e in QA]
        encoded, too_long = train_data.encode_all(tokenizer, entries, 256)
        self.assertEqual(too_long, [])
        rows = [encoded[i] for i in range(len(QA))]
        width = max(len(r["input_ids"]) for r in rows)
        pad = tokenizer.pad_token_id
        ids = torch.tensor([r["input_ids"] + [pad] * (width - len(r["input_ids"])) for r in rows])
        attention = torch.tensor([[1] * len(r["input_ids"]) + [0] * (width - len(r["input_ids"]))
                                  for r in rows])
        labels = ids.clone()
        mask = torch.tensor([r["completion_mask"] + [0] * (width - len(r["completion_mask"]))
                             for r in rows])
        labels[mask == 0] = -100
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
        model.train()
        for _ in range(80):
            loss = model(input_ids=ids, attention_mask=attention, labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        self.assertLess(loss.item(), 0.05)
        model.eval()
        eos = tokenizer.convert_tokens_to_ids("<｜end▁of▁sentence｜>")
        right = 0
        for entry in QA:
            prompt = browser_prompt(tokenizer, [{"role": "user", "content": entry["prompt"]}])
            with torch.no_grad():
                out = model.generate(torch.tensor([prompt]), max_new_tokens=12, do_sample=False,
                                     eos_token_id=eos, pad_token_id=pad)
            answer = tokenizer.decode(out[0, len(prompt):], skip_special_tokens=True)
            right += answer.strip() == entry["completion"]
        self.assertEqual(right, len(QA))


if __name__ == "__main__":
    unittest.main()
