/**
 * A mock run's `gguf/` folder, as training/gguf_export.py writes it for a run asked for GGUF
 * (training option `gguf`): `<name>-<type>.gguf` per type asked, each "checked in llama.cpp"
 * (the Q8_0 one agrees at every clear-margin step, F16 token for token), the Ollama Modelfile, and
 * `export.json` (format 1). The files are small stand-ins: the GGUF magic then zeros. And the
 * adapter and merged-model archives, zips of empty stand-in files, the adapter checked with PEFT.
 */
import {
  ARCHIVE_FOLDERS,
  MODELFILE,
  archiveStem,
  runArchive,
  type GgufFolder,
} from '../../src/shared/run-exports';
import { GGUF_TYPES, type ArchiveKind, type RunInfo } from '../../src/shared/training-api';

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

/** A mock adapter's adapter.check.json (training/adapter_check.py's report: it passed). */
const FAKE_ADAPTER_CHECK = {
  ok: true,
  max_logit_difference: 2.4e-7,
  tolerance: 1e-4,
  tokens: 52,
  seconds: 1.2,
  peft_version: '0.21.0',
};

/** The files a mock run's folders hold (names as the trainer writes them), by archive. */
const FAKE_FOLDERS: Record<ArchiveKind, readonly string[]> = {
  adapter: [
    'adapter_config.json',
    'adapter_model.safetensors',
    'chat_template.jinja',
    'tokenizer.json',
    'tokenizer_config.json',
  ],
  merged: [
    'chat_template.jinja',
    'config.json',
    'generation_config.json',
    'model.safetensors',
    'tokenizer.json',
    'tokenizer_config.json',
  ],
};

/**
 * A mock archive: a valid zip (stored, no data descriptors) of the folder's files, each empty —
 * a stand-in, as the mock's GGUF files are; the service zips the real files (yazl).
 */
function emptyFilesZip(stem: string, names: readonly string[]): Uint8Array {
  const encoder = new TextEncoder();
  const paths = names.map((name) => encoder.encode(`${stem}/${name}`));
  const local = paths.reduce((sum, path) => sum + 30 + path.length, 0);
  const central = paths.reduce((sum, path) => sum + 46 + path.length, 0);
  const bytes = new Uint8Array(local + central + 22);
  const view = new DataView(bytes.buffer);
  let at = 0;
  /** Writes little-endian fields, each [bytes (2 or 4), value], then the name's bytes. */
  const put = (fields: readonly (readonly [2 | 4, number])[], path?: Uint8Array) => {
    for (const [size, value] of fields) {
      if (size === 2) view.setUint16(at, value, true);
      else view.setUint32(at, value, true);
      at += size;
    }
    if (path) bytes.set(path, at);
    at += path?.length ?? 0;
  };
  // Version 10, UTF-8 names, stored, DOS time 0 on 1980-01-01; CRC and sizes 0 (empty files).
  type Field = readonly [2 | 4, number];
  const common = (path: Uint8Array): Field[] => [
    ...[10, 0x0800, 0, 0, 0x21].map((value): Field => [2, value]),
    ...[0, 0, 0].map((value): Field => [4, value]),
    [2, path.length],
    [2, 0],
  ];
  const offsets = paths.map((path) => {
    const offset = at;
    put([[4, 0x04034b50], ...common(path)], path);
    return offset;
  });
  paths.forEach((path, i) => {
    const tail = [
      [2, 0],
      [2, 0],
      [2, 0],
      [4, 0],
      [4, offsets[i] ?? 0],
    ] as const;
    put([[4, 0x02014b50], [2, 20], ...common(path), ...tail], path);
  });
  const count = paths.length;
  put([
    [4, 0x06054b50],
    [2, 0],
    [2, 0],
    [2, count],
    [2, count],
    [4, central],
    [4, local],
    [2, 0],
  ]);
  return bytes;
}

/** A mock run's archive of `kind`, as GET /runs/{id}/exports lists it, and its bytes. */
export async function fakeArchive(info: RunInfo, kind: ArchiveKind) {
  const path = `${info.output_dir}${ARCHIVE_FOLDERS[kind] ? `/${ARCHIVE_FOLDERS[kind]}` : ''}`;
  const files = FAKE_FOLDERS[kind].map((name) => ({ name, bytes: 0 }));
  const zip = emptyFilesZip(archiveStem(info.id, kind), FAKE_FOLDERS[kind]);
  // The adapter's check with PEFT, as training/adapter_check.py reports one that passed.
  const check = kind === 'adapter' ? FAKE_ADAPTER_CHECK : null;
  const listed = await runArchive(info, kind, { path, files, check }, () =>
    Promise.resolve(zip.byteLength),
  );
  return { listed, folder: { path, files, check }, zip };
}
