/**
 * Runs a GGUF file in llama.cpp (node-llama-cpp's prebuilt CPU binary, from the runtime folder that
 * `npm run llama:setup` fills) and reports what training/gguf_export.py compares with PyTorch.
 *
 *   node training/gguf_check.mjs < request.json > result.json
 *
 * request: { runtime, model, prompt: [ids], tokens: [PyTorch's greedy ids], messages?: [{role,
 *            content}], contextSize?: tokens (default: at least 256, and room for the check) }
 * result:  { ok, seconds: { load, evaluate }, contextSize: the context llama.cpp made, steps:
 *            [{ top, second, topLogit, secondLogit, refLogit }], promptFromTemplate?: [ids] }
 *          | { ok: false, error }
 *
 * The prompt and PyTorch's tokens are fed as they are (teacher forcing); at every position from
 * the prompt's last token on, llama.cpp's two highest logits and the logit of PyTorch's next token
 * are read. With `messages`, the chat template inside the GGUF renders them (node-llama-cpp's Jinja
 * chat wrapper, the template as llama.cpp reads it from the file) and the text is tokenized by the
 * GGUF's tokenizer as one string (special tokens parsed, as llama-server and Ollama do), so that
 * the ids can be compared with the Hugging Face tokenizer's.
 */
import { openGguf, serveRequest } from './llama_runtime.mjs';

async function check(request) {
  const { prompt, tokens } = request;
  // Phi 3's longrope asks for a context no larger than its short factors' (llama.cpp picks the
  // factor table by the context's size).
  const contextSize = request.contextSize ?? Math.max(256, prompt.length + tokens.length + 8);
  if (contextSize < prompt.length + tokens.length) {
    throw new Error(
      `a context of ${contextSize} tokens cannot hold the check's ${prompt.length + tokens.length}`,
    );
  }
  const opened = await openGguf(request.runtime, request.model, contextSize);
  const { lib, model, context } = opened;
  const evaluating = performance.now();
  const sequence = context.getSequence();
  const all = [...prompt, ...tokens.slice(0, -1)];
  const input = all.map((token, i) =>
    i < prompt.length - 1
      ? token
      : [
          token,
          {
            generateNext: {
              logits: { filter: { tokens: [tokens[i - prompt.length + 1]], includeTop: 2 } },
            },
          },
        ],
  );
  const output = await sequence.controlledEvaluate(input);
  const steps = [];
  for (let i = prompt.length - 1; i < all.length; i++) {
    const logits = output[i]?.next?.logits;
    if (!logits) throw new Error(`llama.cpp returned no logits at position ${i}`);
    const ranked = [...logits.entries()].sort((a, b) => b[1] - a[1]);
    const ref = tokens[i - prompt.length + 1];
    steps.push({
      top: ranked[0][0],
      second: ranked[1]?.[0] ?? null,
      topLogit: ranked[0][1],
      secondLogit: ranked[1]?.[1] ?? null,
      refLogit: logits.get(ref) ?? null,
    });
  }
  const result = {
    ok: true,
    seconds: {
      load: opened.seconds.runtime + opened.seconds.model,
      evaluate: (performance.now() - evaluating) / 1000,
    },
    contextSize: context.contextSize,
    steps,
  };
  if (request.messages) {
    const template = model.fileInfo.metadata.tokenizer?.chat_template;
    if (typeof template !== 'string') throw new Error('the GGUF has no chat template');
    const wrapper = new lib.JinjaTemplateChatWrapper({ template, tokenizer: model.tokenizer });
    const history = request.messages.map((m) =>
      m.role === 'user'
        ? { type: 'user', text: m.content }
        : m.role === 'system'
          ? { type: 'system', text: m.content }
          : { type: 'model', response: [m.content] },
    );
    if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
    const { contextText } = wrapper.generateContextState({ chatHistory: history });
    // The rendered conversation as one string, tokenized at once with its special tokens parsed,
    // as llama-server and Ollama tokenize a prompt. node-llama-cpp's own LlamaText.tokenize
    // tokenizes each piece apart and drops the space llama.cpp's SentencePiece tokenizer puts
    // before text that follows a special token (after a Phi 3 chat token whose newline it
    // strips, say), so its ids are not what llama.cpp gives the same prompt.
    const builtin = {
      BOS: model.tokens.bosString,
      EOS: model.tokens.eosString,
      EOT: model.tokens.eotString,
      NL: model.tokens.nlString,
    };
    const text = contextText.values
      .map((value) => {
        if (typeof value === 'string') return value;
        const { type, value: inner } = value.toJSON();
        if (type !== 'specialToken') return inner;
        if (builtin[inner] == null) throw new Error(`the GGUF has no text for its ${inner} token`);
        return builtin[inner];
      })
      .join('');
    result.promptFromTemplate = Array.from(model.tokenize(text, true));
  }
  await opened.close();
  return result;
}

serveRequest(check);
