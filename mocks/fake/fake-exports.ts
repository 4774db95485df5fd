/**
 * A mock run's `gguf/` folder, as training/gguf_export.py writes it for a run asked for GGUF
 * (training option `gguf`): `<name>-<type>.gguf` per type asked, each "checked in llama.cpp"
 * (the Q8_0 one agrees at every clear-margin step, F16 token for token), the Ollama Modelfile, and
 * `export.json` (format 1). The files are small stand-ins: the GGUF magic then zeros.
 */
import { MODELFILE, type GgufFolder } from '../../src/shared/run-exports';
import { GGUF_TYPES, type RunInfo } from '../../src/shared/training-api';

/** A mock GGUF file's size in bytes (F16 twice Q8_0's, as real ones are). */
const GGUF_BYTES = { F16: 8192, Q8_0: 4352 } as const;

export interface FakeGgufFolder extends GgufFolder {
  files: Map<string, Uint8Array>;
}

function ggufBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(new TextEncoder().encode('GGUF'));
  bytes[4] = 3;
  return bytes;
}

/** The types a run's `gguf` option asks for (none: no folder). */
const typesOf = (option: unknown) =>
  option === 'both' ? [...GGUF_TYPES] : GGUF_TYPES.filter((type) => type === option);

/** The folder a finished run's trainer left; null when the run asked for no GGUF. */
export function fakeGgufFolder(info: RunInfo, name: string): FakeGgufFolder | null {
  const types = typesOf(info.options?.gguf);
  if (types.length === 0) return null;
  const files = new Map<string, Uint8Array>();
  const entries: Record<string, unknown> = {};
  for (const type of types) {
    const file = `${name}-${type}.gguf`;
    files.set(file, ggufBytes(GGUF_BYTES[type]));
    entries[type] = {
      file,
      type,
      bytes: GGUF_BYTES[type],
      passed: true,
      published: true,
      failure: null,
      tokens_agreed: 12,
      tokens_compared: 12,
      max_abs_diff: type === 'F16' ? 0.0021 : 0.048,
    };
  }
  const from = `./${name}-${types.includes('Q8_0') ? 'Q8_0' : types[0]}.gguf`;
  const modelfile = new TextEncoder().encode(
    `FROM ${from}\nTEMPLATE """{{ .Prompt }}"""\nPARAMETER stop "<|eot_id|>"\n`,
  );
  files.set(MODELFILE, modelfile);
  return {
    files,
    report: {
      format: 1,
      files: entries,
      published: types,
      failed: [],
      modelfile: { file: MODELFILE, from, stop: ['<|eot_id|>'], parameters: {} },
    },
    skipped: null,
    modelfileBytes: modelfile.byteLength,
  };
}
