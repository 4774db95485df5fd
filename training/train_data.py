"""The trainer's data: the dataset file read into chat conversations, each conversation turned into
the token ids the browser will see with a mask on the assistant's turns, and the held-out split.

Accepted files (forms may be mixed in one file):
    a JSON array, or JSONL (one JSON object per line, blank lines allowed), of entries that are
    {"prompt": str, "completion": str}                      -> a user turn and an assistant turn
    {"messages": [{"role": "system"|"user"|"assistant", "content": str}, ...]}
                                                             -> multi-turn, loss on every assistant turn

Token ids follow what the browser sends: the prompt of an assistant turn is the chat template
applied to the messages before it with add_generation_prompt=True, tokenized on its own; the
completion is the rest of the rendered conversation from where the two renderings part, up to
and including that turn's end of turn. Templates whose generation prompt is not a prefix of the
rendered conversation (DeepSeek R1 Distill: the generation prompt ends in "<think>\\n", the
conversation does not) thus train on exactly the prompt the browser sends, and the answer's first
token is learnt. An entry longer than max_len is left out, never cut.
"""
from __future__ import annotations

import json
import random

ROLES = ("system", "user", "assistant")


class DataError(ValueError):
    """Bad input in the dataset or the chat template; one line, the trainer prints it and exits 2."""


# ------------------------------------------------------------------------------------ reading

def _messages(value, where: str) -> list[dict]:
    """The checked chat messages of one entry (`where` names it: "line 3", "entry 2")."""
    if not isinstance(value, dict):
        raise DataError(f"{where}: expected an object with 'prompt' and 'completion' or with "
                        f"'messages', got {type(value).__name__}")
    if "messages" in value:
        turns = value["messages"]
        if not isinstance(turns, list) or not turns:
            raise DataError(f"{where}: 'messages' must be a non-empty list of "
                            "{role, content} objects")
        messages = []
        for number, turn in enumerate(turns):
            if not isinstance(turn, dict):
                raise DataError(f"{where}: message {number} is not an object")
            role, content = turn.get("role"), turn.get("content")
            if role not in ROLES:
                raise DataError(f"{where}: message {number} has role {role!r}; allowed: "
                                f"{', '.join(ROLES)}")
            if not isinstance(content, str):
                raise DataError(f"{where}: message {number} ({role}) has no string 'content' "
                                f"(got {type(content).__name__})")
            messages.append({"role": role, "content": content})
        roles = [m["role"] for m in messages]
        if "assistant" not in roles:
            raise DataError(f"{where}: 'messages' has no assistant turn (nothing to learn)")
        if "user" not in roles[:roles.index("assistant")]:
            raise DataError(f"{where}: the first assistant turn comes before any user turn")
        return messages
    missing = [key for key in ("prompt", "completion") if not isinstance(value.get(key), str)]
    if missing:
        raise DataError(f"{where}: missing or non-string {' and '.join(repr(k) for k in missing)} "
                        "(an entry is {prompt, completion} or {messages})")
    return [{"role": "user", "content": value["prompt"]},
            {"role": "assistant", "content": value["completion"]}]


def load_entries(path: str) -> list[list[dict]]:
    """The dataset file's entries as chat messages; DataError names the line (JSONL, 1-based) or
    the entry (JSON array, 0-based index) that is wrong, and what is wrong."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise DataError(f"data file not found: {path}") from None
    except UnicodeDecodeError as error:
        raise DataError(f"data file is not UTF-8 text: {path}: {error}") from None
    except OSError as error:
        raise DataError(f"data file cannot be read: {path}: {error.strerror or error}") from None
    if not text.strip():
        raise DataError(f"data file is empty: {path}")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise DataError(f"data file is not valid JSON: {path}: line {error.lineno}: "
                            f"{error.msg}") from None
        if not data:
            raise DataError(f"data file has no entries: {path}")
        return [_messages(entry, f"entry {index}") for index, entry in enumerate(data)]
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError(f"{path}: line {number} is not valid JSON ({error.msg} at column "
                            f"{error.colno})") from None
        entries.append(_messages(value, f"line {number}"))
    return entries


# ----------------------------------------------------------------------------------- encoding

def require_chat_template(tokenizer, template_path: str | None, base_model: str,
                          text: str | None = None) -> None:
    """Sets the template given as text (--chat_template, the panel's field) or in a file
    (--chat_template_file); one that does not parse as Jinja is refused with its line. A base
    without a template of its own, and none given, fails at once."""
    if template_path and text:
        raise DataError("give the chat template once: --chat_template TEXT or "
                        "--chat_template_file FILE, not both")
    if template_path:
        try:
            with open(template_path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            raise DataError(f"chat template file cannot be read: {template_path}: "
                            f"{error.strerror or error}") from None
        if not text.strip():
            raise DataError(f"chat template file is empty: {template_path}")
    if text and text.strip():
        _check_template_syntax(text)
        tokenizer.chat_template = text
    elif not getattr(tokenizer, "chat_template", None):
        raise DataError(f"{base_model} has no chat template: the browser could not chat with the "
                        "result; choose an instruct/chat model, or give one (the panel's Advanced "
                        "→ Chat template, or --chat_template_file FILE)")


def _check_template_syntax(text: str) -> None:
    """DataError naming the line of a template that Jinja (as transformers runs it) cannot parse."""
    from jinja2 import TemplateSyntaxError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    try:
        ImmutableSandboxedEnvironment(extensions=["jinja2.ext.loopcontrols"]).parse(text)
    except TemplateSyntaxError as error:
        raise DataError(f"the chat template is not valid Jinja (line {error.lineno}: "
                        f"{error.message})") from None


def _render(tokenizer, messages: list[dict], generation_prompt: bool) -> list[int]:
    text = tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=generation_prompt)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def _common(a: list[int], b: list[int]) -> int:
    """Length of the common prefix of two id lists."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def encode(tokenizer, messages: list[dict], max_len: int) -> dict | None:
    """{"input_ids", "completion_mask"} for one conversation, or None when longer than max_len.

    input_ids = the last assistant turn's prompt ids (its generation-prompt rendering, as the
    browser sends it) + its completion ids (the rendered conversation from where it parts from
    the prompt's ids, through the end of turn). completion_mask is 1 on that completion and on
    every earlier assistant turn inside the prompt, 0 elsewhere. Template errors propagate."""
    turns = [k for k, m in enumerate(messages) if m["role"] == "assistant"]
    last = turns[-1]
    prompt = _render(tokenizer, messages[:last], True)
    full = _render(tokenizer, messages[:last + 1], False)
    start = _common(prompt, full)
    completion = full[start:]
    if not completion:
        raise DataError("the chat template renders the answer as nothing")
    ids = prompt + completion
    if len(ids) > max_len:
        return None
    mask = [0] * len(prompt) + [1] * len(completion)
    for k in turns[:-1]:
        # Earlier turns as the template renders them in the history the browser sends.
        before = _render(tokenizer, messages[:k], True)
        through = _render(tokenizer, messages[:k + 1], False)
        begin, end = _common(before, through), _common(through, prompt)
        if end <= begin:
            raise DataError(f"the chat template renders assistant turn {k} differently later in "
                            "the conversation")
        mask[begin:end] = [1] * (end - begin)
    return {"input_ids": ids, "completion_mask": mask}


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def encode_all(tokenizer, entries: list[list[dict]],
               max_len: int) -> tuple[dict[int, dict], list[int]]:
    """(encoded rows by entry index, indices of the entries longer than max_len); DataError when
    the chat template fails on an entry or when every entry is too long."""
    encoded, too_long = {}, []
    for index, messages in enumerate(entries):
        try:
            row = encode(tokenizer, messages, max_len)
        except DataError as error:
            raise DataError(f"entry {index}: {error}") from None
        except Exception as error:  # noqa: BLE001 - jinja2's TemplateError, raise_exception(), …
            raise DataError(f"the base model's chat template fails on entry {index}: "
                            f"{one_line(error)}") from None
        if row is None:
            too_long.append(index)
        else:
            encoded[index] = row
    if not encoded:
        raise DataError(too_long_message(len(too_long), len(entries), max_len))
    return encoded, too_long


def too_long_message(count: int, total: int, max_len: int) -> str:
    """"3 of 40 entries are longer than 256 tokens and were left out: raise Max length"."""
    noun = "entry" if total == 1 else "entries"
    verbs = ("is", "was") if count == 1 else ("are", "were")
    return (f"{count} of {total} {noun} {verbs[0]} longer than {max_len} tokens and {verbs[1]} "
            "left out: raise Max length")


def make_split(count: int, fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, held_out) positions among `count` entries: round(count × fraction) held out, at least
    one once there are 5 or more entries (none when fraction is 0), and always one left to train."""
    if fraction <= 0 or count < 2:
        held = 0
    else:
        held = round(count * fraction)
        if count >= 5:
            held = max(1, held)
        held = min(held, count - 1)
    held_out = sorted(random.Random(seed).sample(range(count), held))
    chosen = set(held_out)
    return [i for i in range(count) if i not in chosen], held_out


def split_encoded(encoded: dict[int, dict], fraction: float,
                  seed: int) -> tuple[list[int], list[int]]:
    """(train, held_out) entry indices among the encoded entries (the trainer's and the plan's
    rule: make_split over the usable entries in file order)."""
    usable = sorted(encoded)
    train_pos, held_pos = make_split(len(usable), fraction, seed)
    return [usable[i] for i in train_pos], [usable[i] for i in held_pos]
