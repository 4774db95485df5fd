"""An Ollama Modelfile for a checked GGUF file: FROM, the chat template in Ollama's template
language (Go's text/template), the stop tokens and the base's recommended sampling parameters.

The template is translated by what it renders, not by the model's family: the model's own chat
template (Jinja, rendered by its tokenizer as the browser renders it) is rendered for probe
conversations whose texts are unique markers, and from where the markers land the layout is read:
what comes before the first message (with and without a system message, so a default system
prompt the template inserts is kept), the text before and after each role's content, and the
generation prompt. The layout is then rendered back for every probe conversation, single and
multi-turn, with and without a system message and the generation prompt, and must give the
Jinja template's text exactly; a template that renders turns another way (one that rewrites
earlier turns, or refuses a role) gets no Modelfile, and the export says why. The Go template is
written from the layout by one function (go_template), whose output `test_ollama_modelfile` runs
with Go's own text/template.

A leading BOS token in the template is left out of the Go template when the GGUF file adds BOS
itself (tokenizer.ggml.add_bos_token), as llama.cpp does for every prompt Ollama gives it.

A Phi 3 with longrope scaling (Phi 3.5 mini, the 128k models) gets `PARAMETER num_ctx` of its short
factors' context (4096 for those), with a comment saying why: llama.cpp applies the long factors to
the whole sequence in any larger context, and Ollama picks a larger one by default on a GPU with
24 GiB or more (4k below, 32k, then 256k), so a short chat would run otherwise than the model
was checked (gguf_export.LONGROPE_NOTE). A user who wants the long context raises num_ctx.

    from ollama_modelfile import write_modelfile
    write_modelfile(merged_dir, gguf_path, out_path)    # ModelfileSkipped(reason) when it cannot
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

# Probe texts: marker strings a template passes through unchanged (no spaces to trim).
MARK = {"system": "S7q", "user": ("U1x", "U2y", "U3z"), "assistant": ("A1x", "A2y")}
# The sampling settings generation_config.json may carry, as Ollama's PARAMETER names.
PARAMETERS = {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
              "repetition_penalty": "repeat_penalty"}


class ModelfileSkipped(Exception):
    """No Modelfile can be written for this model; the message says why."""


@dataclass(frozen=True)
class Layout:
    """How a chat template lays out a conversation, as the text around the messages' contents:
    `head[role]` before a first message of that role (a default system prompt the template
    inserts is part of head["user"]); `between[(previous, next)]` between two messages' contents;
    `generation` after a last user message (the generation prompt); `continuation` after a last
    assistant message that the model continues. A role other than system and assistant is laid
    out as user's; a pair of roles the probes did not show gets nothing between them."""
    head: dict
    between: dict
    generation: str
    continuation: str

    def render(self, messages: list[dict]) -> str:
        """The conversation as this layout renders it: what go_template's template does."""
        out, last = [], ""
        for i, message in enumerate(messages):
            role = _role(message["role"])
            out.append(self.head.get(role, "") if i == 0 else self.between.get((last, role), ""))
            out.append(message["content"])
            last = role
        out.append(self.continuation if last == "assistant" else self.generation)
        return "".join(out)


def _role(role: str) -> str:
    return role if role in ("system", "assistant") else "user"


def _around(text: str, marks: list[str]) -> list[str]:
    """The pieces of text around the marks, in order (each mark found once)."""
    pieces, rest = [], text
    for mark in marks:
        if rest.count(mark) != 1:
            raise ModelfileSkipped("the chat template does not render each message's text once")
        before, rest = rest.split(mark)
        pieces.append(before)
    return pieces + [rest]


def _probes(with_system: bool) -> list[list[dict]]:
    u1, u2, u3 = MARK["user"]
    a1, a2 = MARK["assistant"]
    turns = [{"role": "user", "content": u1}, {"role": "assistant", "content": a1},
             {"role": "user", "content": u2}, {"role": "assistant", "content": a2},
             {"role": "user", "content": u3}]
    probes = [turns[:n] for n in range(1, 6)]
    if with_system:
        system = {"role": "system", "content": MARK["system"]}
        probes += [[system, *turns[:n]] for n in (1, 2, 3, 5)]
    return probes


def read_layout(render) -> Layout:
    """The layout of the template `render(messages) -> str` renders (the generation prompt after
    a last user message, an open reply after a last assistant one), checked against it for every
    probe conversation; ModelfileSkipped with the reason otherwise."""
    u1, u2, _ = MARK["user"]
    a1, _ = MARK["assistant"]
    try:
        head, user_assistant, assistant_user, generation = _around(
            render([{"role": "user", "content": u1}, {"role": "assistant", "content": a1},
                    {"role": "user", "content": u2}]), [u1, a1, u2])
        continuation = _around(render([{"role": "user", "content": u1},
                                       {"role": "assistant", "content": a1}]), [u1, a1])[2]
    except ModelfileSkipped:
        raise
    except Exception as error:  # a template that raises on a plain conversation
        raise ModelfileSkipped(f"the chat template fails on a plain conversation ({error})") from error
    heads = {"user": head}
    between = {("user", "assistant"): user_assistant, ("assistant", "user"): assistant_user}
    try:
        system_head, system_user, _ = _around(
            render([{"role": "system", "content": MARK["system"]},
                    {"role": "user", "content": u1}]), [MARK["system"], u1])
        heads["system"] = system_head
        between[("system", "user")] = system_user
    except Exception:  # a template without a system turn refuses one (e.g. raise_exception)
        pass
    layout = Layout(head=heads, between=between, generation=generation, continuation=continuation)
    for messages in _probes("system" in heads):
        if layout.render(messages) != render(messages):
            raise ModelfileSkipped(
                f"the chat template renders a {len(messages)}-message conversation otherwise than "
                "message by message (it rewrites earlier turns), which a Modelfile template "
                "cannot reproduce")
    return layout


def _go_text(text: str) -> str:
    """Literal text inside a Go template: as is, but an action delimiter is written as an action."""
    return text.replace("{{", '{{ "{{" }}')


def go_template(layout: Layout, drop_leading: str = "") -> str:
    """Ollama's TEMPLATE for the layout, over `.Messages` (Ollama puts SYSTEM, when set, first
    among them as a system message); `drop_leading` is left off the heads (the BOS llama.cpp
    adds to every prompt)."""
    def head(role: str) -> str:
        text = layout.head.get(role, "")
        return _go_text(text[len(drop_leading):] if drop_leading and text.startswith(drop_leading)
                        else text)

    out = ['{{ $last := "" }}{{ range $i, $m := .Messages }}{{ $r := "user" }}'
           '{{ if or (eq $m.Role "system") (eq $m.Role "assistant") }}{{ $r = $m.Role }}{{ end }}'
           f'{{{{ if eq $i 0 }}}}{{{{ if eq $r "system" }}}}{head("system")}'
           f'{{{{ else if eq $r "assistant" }}}}{head("assistant")}{{{{ else }}}}{head("user")}'
           '{{ end }}']
    for (previous, role), text in layout.between.items():
        out.append(f'{{{{ else if and (eq $last "{previous}") (eq $r "{role}") }}}}'
                   f'{_go_text(text)}')
    out.append('{{ end }}{{ $m.Content }}{{ $last = $r }}{{ end }}'
               f'{{{{ if eq $last "assistant" }}}}{_go_text(layout.continuation)}'
               f'{{{{ else }}}}{_go_text(layout.generation)}{{{{ end }}}}')
    return "".join(out)


def _quoted(text: str) -> str:
    """A Modelfile value as Ollama's parser reads it: the text between triple quotes, as is (no
    escapes; a character that is not printable, but for a newline or tab, is dropped by it)."""
    if '"""' in text or any(not (c.isprintable() or c in "\n\t") for c in text):
        raise ModelfileSkipped("the chat template holds text a Modelfile cannot quote (three "
                               "double quotes in a row, or a character that is not printable)")
    return f'"""{text}"""'


def _gguf_adds_bos(gguf_path: str) -> bool:
    import gguf

    field = gguf.GGUFReader(gguf_path).fields.get("tokenizer.ggml.add_bos_token")
    return bool(field is not None and field.contents())


def modelfile_text(merged_dir: str, gguf_file: str, adds_bos: bool) -> tuple[str, dict]:
    """The Modelfile for `FROM ./<gguf_file>` and what it holds (for export.json)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(merged_dir)
    if not getattr(tokenizer, "chat_template", None):
        raise ModelfileSkipped("the model has no chat template, so Ollama would not know how to "
                               "lay out a conversation")

    def render(messages):
        open_reply = messages[-1]["role"] == "assistant"
        return tokenizer.apply_chat_template(messages, tokenize=False,
                                             add_generation_prompt=not open_reply,
                                             continue_final_message=open_reply)

    layout = read_layout(render)
    bos = tokenizer.bos_token if adds_bos and tokenizer.bos_token else ""
    stops = []
    end_of_turn = layout.between[("assistant", "user")].strip().split("\n")[0]
    for text in (end_of_turn, tokenizer.eos_token):
        if text and text not in stops and text in tokenizer.get_vocab():
            stops.append(text)
    config_path = os.path.join(merged_dir, "generation_config.json")
    generation = {}
    if os.path.isfile(config_path):
        with open(config_path, encoding="utf-8") as handle:
            generation = json.load(handle)
        eos = generation.get("eos_token_id")
        for token_id in eos if isinstance(eos, list) else [eos] if eos is not None else []:
            text = tokenizer.convert_ids_to_tokens(int(token_id))
            if text and text not in stops:
                stops.append(text)
    parameters = {ollama: generation[name] for name, ollama in PARAMETERS.items()
                  if isinstance(generation.get(name), (int, float)) and generation.get("do_sample",
                                                                                        True)}
    lines = [f"FROM ./{gguf_file}", "", f"TEMPLATE {_quoted(go_template(layout, bos))}", ""]
    lines += [f'PARAMETER stop "{stop}"' for stop in stops
              if '"' not in stop and stop.isprintable()]
    lines += [f"PARAMETER {name} {value}" for name, value in parameters.items()]
    context = _longrope_context(merged_dir)
    if context is not None:
        lines += [f"# Longrope: past {context} tokens of context llama.cpp applies the long rope "
                  f"factors to the whole", f"# sequence (transformers only to a sequence longer "
                  f"than {context}); raise num_ctx for longer chats.",
                  f"PARAMETER num_ctx {context}"]
    info = {"from": gguf_file, "stop": stops, "parameters": parameters,
            "system_turn": "system" in layout.head, "bos_left_to_llama_cpp": bool(bos),
            **({"num_ctx": context} if context is not None else {})}
    return "\n".join(lines) + "\n", info


def _longrope_context(merged_dir: str) -> int | None:
    """The short factors' context of a longrope model (gguf_export.longrope_context), else None."""
    from gguf_export import longrope_context

    path = os.path.join(merged_dir, "config.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return longrope_context(json.load(handle))


def write_modelfile(merged_dir: str, gguf_path: str, out_path: str) -> dict:
    """Writes the Modelfile for the GGUF file beside it (out_path in the same folder)."""
    text, info = modelfile_text(merged_dir, os.path.basename(gguf_path), _gguf_adds_bos(gguf_path))
    partial = out_path + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, out_path)
    return info
