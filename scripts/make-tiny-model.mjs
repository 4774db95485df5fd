#!/usr/bin/env node
/**
 * Generates a tiny, random-weight, Llama-shaped causal language model that transformers.js can
 * load through its real code path (config.json + onnx/model.onnx + tokenizer.json ...), without
 * downloading anything. Deterministic (fixed-seed PRNG), idempotent, fast.
 *
 *   node scripts/make-tiny-model.mjs [outDir]
 *
 * Default output: tests/fixtures/generated/tiny-model/ (gitignored).
 *
 * The ONNX graph is a real decoder: token embedding (Gather), RMSNorm from primitives, Q/K/V/O
 * projections, rotary position embeddings driven by `position_ids`, grouped-query attention over
 * `past_key_values.{i}.*` concatenated with the new keys/values (returned as `present.{i}.*`), a
 * causal mask that also honours `attention_mask` and the past length, a SiLU-gated MLP, a final
 * norm and a biased lm_head. The cached and uncached paths therefore compute the same function.
 */
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GENERATED = join(ROOT, 'tests', 'fixtures', 'generated');
/** An explicit folder: only the tiny Llama, there. None: the tiny Llama and every family variant. */
const OUT_ARG = process.argv[2] ? resolve(process.argv[2]) : null;

// ---------------------------------------------------------------------------------------------
// Hyper-parameters
// ---------------------------------------------------------------------------------------------
const HIDDEN = 64;
const NUM_LAYERS = 2;
const NUM_HEADS = 4;
const NUM_KV_HEADS = 2;
const HEAD_DIM = 16;
const GROUP = NUM_HEADS / NUM_KV_HEADS;
const INTERMEDIATE = 128;
const ROPE_THETA = 10000;
const RMS_EPS = 1e-5;
const MAX_POSITIONS = 4096;
const SEED = 0x5eed1234;
const MASK_VALUE = -1e9;

// ---------------------------------------------------------------------------------------------
// Tokenizer: byte-level BPE (GPT-2 / Llama-3 style)
// ---------------------------------------------------------------------------------------------

/** GPT-2's reversible byte -> printable unicode mapping, in its canonical order. */
function bytesToUnicode() {
  const bs = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  return bs.map((b, i) => [b, String.fromCharCode(cs[i])]);
}

const WORDS = (
  'the of and to in is that it for was on with as you at be this have from or by not but what all ' +
  'were we when your can said there use an each which she do how their if will up other about out ' +
  'many then them these so some her would make like him into time has look two more write go see ' +
  'number no way could people my than first water been call who now find long down day did get ' +
  'come made may part model light small world think answer question here good new great story ' +
  'little house river city music learn while'
).split(' ');
/** Words that also get a bare (no leading space) token, e.g. for the start of a reply. */
const BARE_WORDS = [
  'The',
  'I',
  'Hello',
  'Yes',
  'No',
  'It',
  'This',
  'We',
  'assistant',
  'user',
  'system',
];

const LLAMA_SPECIAL_TOKENS = [
  '<|begin_of_text|>',
  '<|eot_id|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<think>',
  '</think>',
];

function buildTokenizer(SPECIAL_TOKENS, BOS) {
  const vocab = new Map();
  const byteTokens = bytesToUnicode().map(([, ch]) => ch);
  for (const ch of byteTokens) vocab.set(ch, vocab.size);

  // Merges: for every target piece, the left-to-right prefix chain (piece[0..k-1] + piece[k-1]).
  // Ranked by the length of the merged result so that shorter pieces are merged first.
  const targets = [...WORDS.map((w) => `Ġ${w}`), ...BARE_WORDS];
  const merges = [];
  const seen = new Set();
  for (let len = 2; len <= Math.max(...targets.map((t) => t.length)); len++) {
    for (const t of targets) {
      if (t.length < len) continue;
      const left = t.slice(0, len - 1);
      const right = t[len - 1];
      const merged = left + right;
      if (seen.has(merged)) continue;
      seen.add(merged);
      merges.push([left, right]);
      vocab.set(merged, vocab.size);
    }
  }
  const wordTokenIds = new Set(targets.map((t) => vocab.get(t)));

  const added = SPECIAL_TOKENS.map((content) => {
    const id = vocab.size;
    vocab.set(content, id);
    return {
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    };
  });
  const baseVocab = Object.fromEntries([...vocab].filter(([tok]) => !SPECIAL_TOKENS.includes(tok)));
  const bosId = vocab.get(BOS);

  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: BOS, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: BOS, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: BOS, type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { [BOS]: { id: BOS, ids: [bosId], tokens: [BOS] } },
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: baseVocab,
      merges,
    },
  };
  return {
    tokenizerJson,
    vocab,
    byteTokens: new Set(byteTokens),
    wordTokenIds,
    specialIds: added.map((a) => a.id),
  };
}

const LLAMA_TEMPLATE =
  "{{- bos_token }}{%- for message in messages %}{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + (message['content'] | trim) + '<|eot_id|>' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}";

// ---------------------------------------------------------------------------------------------
// Deterministic PRNG
// ---------------------------------------------------------------------------------------------
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let rand = mulberry32(SEED);
/** Uniform weights with the given standard deviation. */
function randomTensor(size, std) {
  const a = std * Math.sqrt(3);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) out[i] = (rand() * 2 - 1) * a;
  return out;
}

// ---------------------------------------------------------------------------------------------
// ONNX graph builder
// ---------------------------------------------------------------------------------------------
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

const nodes = [];
const initializers = [];
const opsUsed = new Set();
let counter = 0;

/** A fresh graph and PRNG, so every variant starts from the same seed. */
function resetGraph() {
  nodes.length = 0;
  initializers.length = 0;
  counter = 0;
  rand = mulberry32(SEED);
}

function floatInit(name, dims, data) {
  const f = data instanceof Float32Array ? data : Float32Array.from(data);
  initializers.push(
    onnx.TensorProto.create({
      name,
      dims,
      dataType: T.FLOAT,
      rawData: new Uint8Array(f.buffer, f.byteOffset, f.byteLength),
    }),
  );
  return name;
}
function int64Init(name, dims, data) {
  const b = BigInt64Array.from(data.map((x) => BigInt(x)));
  initializers.push(
    onnx.TensorProto.create({
      name,
      dims,
      dataType: T.INT64,
      rawData: new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
    }),
  );
  return name;
}
function attr(name, value) {
  if (typeof value === 'number' && Number.isInteger(value)) return { name, type: A.INT, i: value };
  if (typeof value === 'number') return { name, type: A.FLOAT, f: value };
  if (Array.isArray(value)) return { name, type: A.INTS, ints: value };
  throw new Error(`unsupported attribute ${name}`);
}
/** Adds a node and returns its (single) output name. */
function op(opType, inputs, attrs = {}, outName) {
  opsUsed.add(opType);
  const output = outName ?? `${opType.toLowerCase()}_${counter++}`;
  nodes.push(
    onnx.NodeProto.create({
      name: `n${nodes.length}_${opType}`,
      opType,
      input: inputs,
      output: [output],
      attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    }),
  );
  return output;
}
function valueInfo(name, elemType, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: {
          dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })),
        },
      },
    },
  });
}

/**
 * `rules`: after any of `rule.after` (token ids) the model writes `rule.token` (a boost on that
 * logit), as a real model ends its turn after a sentence: the family variants use it to end a
 * reply with their end-of-turn token (or close a reasoning block) after a few words, and to start
 * a reply with a bare word (as real models do), so the template re-renders it token for token.
 */
function buildModel(vocabSize, logitBias, rules = []) {
  resetGraph();
  // Shared constants
  const axesLast = int64Init('axes_last', [1], [-1]);
  const axes0 = int64Init('axes_0', [1], [0]);
  const axes1 = int64Init('axes_1', [1], [1]);
  const axes2 = int64Init('axes_2', [1], [2]);
  const axes12 = int64Init('axes_1_2', [2], [1, 2]);
  const zeroI = int64Init('zero_i64', [], [0]);
  const oneI = int64Init('one_i64', [], [1]);
  const twoI = int64Init('two_i64', [], [2]);
  const epsF = floatInit('rms_eps', [], [RMS_EPS]);
  const oneF = floatInit('one_f', [], [1]);
  const zeroF = floatInit('zero_f', [], [0]);
  const maskF = floatInit('mask_value', [], [MASK_VALUE]);
  const scaleF = floatInit('attn_scale', [], [1 / Math.sqrt(HEAD_DIM)]);
  const shapeQ = int64Init('shape_q', [4], [0, 0, NUM_HEADS, HEAD_DIM]);
  const shapeKV = int64Init('shape_kv', [4], [0, 0, NUM_KV_HEADS, HEAD_DIM]);
  const shapeQ5 = int64Init('shape_q5', [5], [0, NUM_KV_HEADS, GROUP, -1, HEAD_DIM]);
  const shapeCtx4 = int64Init('shape_ctx4', [4], [0, NUM_HEADS, -1, HEAD_DIM]);
  const shapeHidden = int64Init('shape_hidden', [3], [0, 0, NUM_HEADS * HEAD_DIM]);

  // Rotary tables: inv_freq duplicated to head_dim, and rotate_half as a fixed +-1 matrix.
  const half = HEAD_DIM / 2;
  const invFreq = new Float32Array(HEAD_DIM);
  for (let i = 0; i < half; i++) {
    const f = 1 / Math.pow(ROPE_THETA, (2 * i) / HEAD_DIM);
    invFreq[i] = f;
    invFreq[i + half] = f;
  }
  floatInit('rope_inv_freq', [HEAD_DIM], invFreq);
  const rot = new Float32Array(HEAD_DIM * HEAD_DIM); // out = x @ rot = concat(-x2, x1)
  for (let j = 0; j < half; j++) {
    rot[(j + half) * HEAD_DIM + j] = -1;
    rot[j * HEAD_DIM + (j + half)] = 1;
  }
  floatInit('rope_rotate_half', [HEAD_DIM, HEAD_DIM], rot);

  // Weights
  floatInit('model.embed_tokens.weight', [vocabSize, HIDDEN], randomTensor(vocabSize * HIDDEN, 1));
  const lin = (name, fanIn, fanOut, gain = 1) =>
    floatInit(name, [fanIn, fanOut], randomTensor(fanIn * fanOut, gain / Math.sqrt(fanIn)));
  const normW = (name) =>
    floatInit(
      name,
      [HIDDEN],
      Float32Array.from({ length: HIDDEN }, () => 1),
    );

  // --- Embedding
  let hidden = op(
    'Gather',
    ['model.embed_tokens.weight', 'input_ids'],
    { axis: 0 },
    'inputs_embeds',
  );

  // --- Rotary cos/sin from position_ids: [B, 1, S, D]
  const posF = op('Cast', ['position_ids'], { to: T.FLOAT });
  const pos3 = op('Unsqueeze', [posF, axesLast]);
  const freqs = op('Mul', [pos3, 'rope_inv_freq']);
  const cos = op('Unsqueeze', [op('Cos', [freqs]), axes1], {}, 'rope_cos');
  const sin = op('Unsqueeze', [op('Sin', [freqs]), axes1], {}, 'rope_sin');
  const rope = (x) =>
    op('Add', [op('Mul', [x, cos]), op('Mul', [op('MatMul', [x, 'rope_rotate_half']), sin])]);

  // --- Attention mask, additive, [B, 1, 1, S, T]: causal w.r.t. absolute index (past + s) and padding.
  const pastLen = op(
    'Gather',
    [op('Shape', ['past_key_values.0.key']), twoI],
    { axis: 0 },
    'past_length',
  );
  const seqLen = op('Gather', [op('Shape', ['input_ids']), oneI], { axis: 0 }, 'seq_length');
  const totalLen = op(
    'Gather',
    [op('Shape', ['attention_mask']), oneI],
    { axis: 0 },
    'total_length',
  );
  const qPos = op('Range', [pastLen, op('Add', [pastLen, seqLen]), oneI]);
  const kPos = op('Range', [zeroI, totalLen, oneI]);
  const future = op('Less', [op('Unsqueeze', [qPos, axes1]), op('Unsqueeze', [kPos, axes0])]); // [S, T]
  const causalAdd = op('Where', [future, maskF, zeroF]); // [S, T]
  const amF = op('Cast', ['attention_mask'], { to: T.FLOAT });
  const padAdd = op('Mul', [op('Sub', [oneF, amF]), maskF]); // [B, T]: 0 keep, -1e9 padded
  const mask3 = op('Add', [op('Unsqueeze', [padAdd, axes1]), causalAdd]); // [B, S, T]
  const mask5 = op('Unsqueeze', [mask3, axes12], {}, 'attention_bias'); // [B, 1, 1, S, T]

  const rmsNorm = (x, weight) => {
    const ms = op('ReduceMean', [op('Mul', [x, x])], { axes: [-1], keepdims: 1 });
    const normed = op('Div', [x, op('Sqrt', [op('Add', [ms, epsF])])]);
    return op('Mul', [normed, weight]);
  };

  for (let l = 0; l < NUM_LAYERS; l++) {
    const p = `model.layers.${l}`;
    const wq = lin(`${p}.self_attn.q_proj.weight`, HIDDEN, NUM_HEADS * HEAD_DIM);
    const wk = lin(`${p}.self_attn.k_proj.weight`, HIDDEN, NUM_KV_HEADS * HEAD_DIM);
    const wv = lin(`${p}.self_attn.v_proj.weight`, HIDDEN, NUM_KV_HEADS * HEAD_DIM);
    const wo = lin(`${p}.self_attn.o_proj.weight`, NUM_HEADS * HEAD_DIM, HIDDEN);
    const wg = lin(`${p}.mlp.gate_proj.weight`, HIDDEN, INTERMEDIATE);
    const wu = lin(`${p}.mlp.up_proj.weight`, HIDDEN, INTERMEDIATE);
    const wd = lin(`${p}.mlp.down_proj.weight`, INTERMEDIATE, HIDDEN);
    const ln1 = normW(`${p}.input_layernorm.weight`);
    const ln2 = normW(`${p}.post_attention_layernorm.weight`);

    // Self-attention
    const h = rmsNorm(hidden, ln1);
    const toHeads = (x, shape) =>
      op('Transpose', [op('Reshape', [x, shape])], { perm: [0, 2, 1, 3] });
    const q = rope(toHeads(op('MatMul', [h, wq]), shapeQ)); // [B, H, S, D]
    const k = rope(toHeads(op('MatMul', [h, wk]), shapeKV)); // [B, KVH, S, D]
    const v = toHeads(op('MatMul', [h, wv]), shapeKV);
    const presentK = op('Concat', [`past_key_values.${l}.key`, k], { axis: 2 }, `present.${l}.key`);
    const presentV = op(
      'Concat',
      [`past_key_values.${l}.value`, v],
      { axis: 2 },
      `present.${l}.value`,
    );

    // Grouped-query attention: [B, KVH, G, S, D] x [B, KVH, 1, D, T] (broadcast over G)
    const q5 = op('Reshape', [q, shapeQ5]);
    const kT5 = op('Unsqueeze', [op('Transpose', [presentK], { perm: [0, 1, 3, 2] }), axes2]);
    const v5 = op('Unsqueeze', [presentV, axes2]);
    const scores = op('Add', [op('Mul', [op('MatMul', [q5, kT5]), scaleF]), mask5]); // [B, KVH, G, S, T]
    const probs = op('Softmax', [scores], { axis: -1 });
    const ctx = op('MatMul', [probs, v5]); // [B, KVH, G, S, D]
    const ctx4 = op('Transpose', [op('Reshape', [ctx, shapeCtx4])], { perm: [0, 2, 1, 3] }); // [B, S, H, D]
    const attnOut = op('MatMul', [op('Reshape', [ctx4, shapeHidden]), wo]);
    hidden = op('Add', [hidden, attnOut]);

    // SiLU-gated MLP
    const h2 = rmsNorm(hidden, ln2);
    const gate = op('MatMul', [h2, wg]);
    const silu = op('Mul', [gate, op('Sigmoid', [gate])]);
    const mlp = op('MatMul', [op('Mul', [silu, op('MatMul', [h2, wu])]), wd]);
    hidden = op('Add', [hidden, mlp]);
  }

  const normF = normW('model.norm.weight');
  const finalH = rmsNorm(hidden, normF);
  // lm_head scaled up a little so that greedy decoding has clear margins between candidates.
  lin('lm_head.weight', HIDDEN, vocabSize, 4);
  floatInit('lm_head.bias', [vocabSize], logitBias);
  const raw = op(
    'Add',
    [op('MatMul', [finalH, 'lm_head.weight']), 'lm_head.bias'],
    {},
    rules.length ? undefined : 'logits',
  );
  let logits = raw;
  rules.forEach((rule, i) => {
    const trigger = new Float32Array(vocabSize);
    for (const id of rule.after) trigger[id] = 1;
    const boost = new Float32Array(vocabSize);
    boost[rule.token] = 200;
    floatInit(`rule${i}_trigger`, [vocabSize], trigger);
    floatInit(`rule${i}_boost`, [vocabSize], boost);
    const fired = op('Unsqueeze', [op('Gather', [`rule${i}_trigger`, 'input_ids']), axes2]);
    const last = i === rules.length - 1;
    logits = op(
      'Add',
      [logits, op('Mul', [fired, `rule${i}_boost`])],
      {},
      last ? 'logits' : undefined,
    );
  });

  const inputs = [
    valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']),
    valueInfo('attention_mask', T.INT64, ['batch_size', 'total_sequence_length']),
    valueInfo('position_ids', T.INT64, ['batch_size', 'sequence_length']),
  ];
  const outputs = [valueInfo('logits', T.FLOAT, ['batch_size', 'sequence_length', vocabSize])];
  for (let l = 0; l < NUM_LAYERS; l++) {
    for (const kind of ['key', 'value']) {
      inputs.push(
        valueInfo(`past_key_values.${l}.${kind}`, T.FLOAT, [
          'batch_size',
          NUM_KV_HEADS,
          'past_sequence_length',
          HEAD_DIM,
        ]),
      );
      outputs.push(
        valueInfo(`present.${l}.${kind}`, T.FLOAT, [
          'batch_size',
          NUM_KV_HEADS,
          'total_sequence_length',
          HEAD_DIM,
        ]),
      );
    }
  }

  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'make-tiny-model.mjs',
    producerVersion: '1',
    modelVersion: 1,
    docString: 'Tiny random-weight Llama-shaped decoder for tests. Not a real language model.',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny_random_llama',
      node: nodes,
      initializer: initializers,
      input: inputs,
      output: outputs,
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------
function dirSize(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    total += entry.isDirectory() ? dirSize(full) : statSync(full).size;
  }
  return total;
}

/**
 * The family variants: the same decoder (same seed) with a tokenizer and chat template written to
 * behave like a real family's, for the tests of system prompts, end of turn and reasoning.
 * `stopAfter`: words after which the model writes `stopToken` (see buildModel).
 */
const GEMMA_TEMPLATE =
  "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}";
const R1_TEMPLATE =
  "{% set ns = namespace(system_prompt='') %}{%- for message in messages %}{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{{ '<｜User｜>' + message['content'] }}{%- endif %}{%- if message['role'] == 'assistant' %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{ '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' }}{%- endif %}{%- endfor %}{% if add_generation_prompt %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}";
const BAD_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ raise_exception('This template only renders tool calls') }}{% endif %}{% endfor %}";

const VARIANTS = {
  'tiny-model': {
    specials: LLAMA_SPECIAL_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    template: LLAMA_TEMPLATE,
  },
  // gemma 2: a template that rejects a system role, and a generation config that names only <eos>
  // (gemma-2-2b-jpn-it's short form), while the model ends its turn with <end_of_turn>.
  'tiny-gemma': {
    specials: ['<pad>', '<eos>', '<bos>', '<start_of_turn>', '<end_of_turn>'],
    bos: '<bos>',
    eos: '<eos>',
    template: GEMMA_TEMPLATE,
    stopToken: '<end_of_turn>',
    stopAfter: ['water', 'world', 'people'],
    firstWord: 'The',
  },
  // DeepSeek R1 Distill (Qwen): the generation prompt opens <think>; the model closes it after a
  // few words and answers; its generation config recommends sampling (temperature 0.6, top p 0.95).
  'tiny-r1': {
    specials: [
      '<｜begin▁of▁sentence｜>',
      '<｜end▁of▁sentence｜>',
      '<｜User｜>',
      '<｜Assistant｜>',
      '<think>',
      '</think>',
    ],
    bos: '<｜begin▁of▁sentence｜>',
    eos: '<｜end▁of▁sentence｜>',
    template: R1_TEMPLATE,
    stopToken: '</think>',
    stopAfter: ['water', 'world', 'people'],
    firstWord: 'The',
    generation: { do_sample: true, temperature: 0.6, top_p: 0.95 },
  },
  // The tiny Llama whose replies start with a bare word (as real ones do after "\n\n"): the
  // template's `| trim` then re-renders a reply token for token, so the cache-reuse test sees reuse.
  'tiny-llama-bare': {
    specials: LLAMA_SPECIAL_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    template: LLAMA_TEMPLATE,
    firstWord: 'The',
  },
  'tiny-no-template': {
    specials: LLAMA_SPECIAL_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    template: null,
  },
  'tiny-bad-template': {
    specials: LLAMA_SPECIAL_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    template: BAD_TEMPLATE,
  },
};

function writeVariant(outDir, variant) {
  const started = performance.now();
  const { specials, bos: BOS, eos: EOS } = variant;
  const { tokenizerJson, vocab, byteTokens, wordTokenIds, specialIds } = buildTokenizer(
    specials,
    BOS,
  );
  const vocabSize = vocab.size;
  const bosId = vocab.get(BOS);
  const eosId = vocab.get(EOS);

  // Logit bias: never emit special tokens (so generations run to max_new_tokens and every token is
  // visible text), prefer whole " word" tokens over partial pieces and raw bytes.
  const bias = new Float32Array(vocabSize);
  for (const [tok, id] of vocab) {
    if (specialIds.includes(id)) bias[id] = -100;
    else if (wordTokenIds.has(id) && tok.startsWith('Ġ')) bias[id] = 3;
    else if (byteTokens.has(tok)) bias[id] = /^[.,!?]$/.test(tok) ? 0 : -4;
    else bias[id] = -2;
  }
  const rules = [];
  if (variant.stopToken)
    rules.push({
      token: vocab.get(variant.stopToken),
      after: variant.stopAfter.map((w) => vocab.get(`Ġ${w}`)),
    });
  // The reply starts with a bare word right after the generation prompt's last token (a newline).
  if (variant.firstWord)
    rules.push({
      token: vocab.get(variant.firstWord),
      after: [...vocab].filter(([tok]) => /^Ċ+$/.test(tok)).map(([, id]) => id),
    });

  const modelBytes = buildModel(vocabSize, bias, rules);
  const config = {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: HIDDEN,
    intermediate_size: INTERMEDIATE,
    num_hidden_layers: NUM_LAYERS,
    num_attention_heads: NUM_HEADS,
    num_key_value_heads: NUM_KV_HEADS,
    head_dim: HEAD_DIM,
    vocab_size: vocabSize,
    max_position_embeddings: MAX_POSITIONS,
    rms_norm_eps: RMS_EPS,
    rope_theta: ROPE_THETA,
    hidden_act: 'silu',
    tie_word_embeddings: false,
    bos_token_id: bosId,
    eos_token_id: eosId,
    torch_dtype: 'float32',
    'transformers.js_config': { use_external_data_format: false, dtype: 'fp32' },
  };
  const generationConfig = {
    bos_token_id: bosId,
    eos_token_id: [eosId],
    do_sample: false,
    max_new_tokens: 256,
    ...variant.generation,
  };
  const tokenizerConfig = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: BOS,
    eos_token: EOS,
    pad_token: EOS,
    padding_side: 'left',
    clean_up_tokenization_spaces: false,
    model_max_length: MAX_POSITIONS,
    model_input_names: ['input_ids', 'attention_mask'],
    ...(variant.template ? { chat_template: variant.template } : {}),
    added_tokens_decoder: Object.fromEntries(
      tokenizerJson.added_tokens.map(({ id, ...rest }) => [String(id), rest]),
    ),
  };
  const specialTokensMap = { bos_token: BOS, eos_token: EOS, pad_token: EOS };

  // Each file is written to a temporary name and renamed over the old one, so a concurrent reader
  // (another test file, a running model server) never sees a half-written file.
  mkdirSync(join(outDir, 'onnx'), { recursive: true });
  const write = (file, data) => {
    const tmp = join(outDir, `${file}.tmp-${process.pid}`);
    writeFileSync(tmp, data);
    renameSync(tmp, join(outDir, file));
  };
  const json = (file, obj) => write(file, `${JSON.stringify(obj, null, 2)}\n`);
  json('config.json', config);
  json('generation_config.json', generationConfig);
  json('tokenizer.json', tokenizerJson);
  json('tokenizer_config.json', tokenizerConfig);
  json('special_tokens_map.json', specialTokensMap);
  write(join('onnx', 'model.onnx'), modelBytes);

  const ms = Math.round(performance.now() - started);
  console.log(
    `tiny model (${variant.stopToken ? `ends with ${variant.stopToken}` : 'never ends'}${variant.firstWord ? `, starts with ${variant.firstWord}` : ''}) -> ${relative(process.cwd(), outDir) || '.'} (${(dirSize(outDir) / 1024).toFixed(0)} KiB, ` +
      `onnx ${(modelBytes.length / 1024).toFixed(0)} KiB, vocab ${vocabSize}, ${nodes.length} nodes, ` +
      `ops: ${[...opsUsed].sort().join(' ')}; ${ms} ms)`,
  );
}

function main() {
  if (OUT_ARG) {
    writeVariant(OUT_ARG, VARIANTS['tiny-model']);
    return;
  }
  for (const [name, variant] of Object.entries(VARIANTS)) {
    writeVariant(join(GENERATED, name), variant);
  }
}

main();
