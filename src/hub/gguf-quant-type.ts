import { GGMLFileQuantizationType, parseGGUFQuantLabel } from '@huggingface/tasks';

export interface GgufQuantType {
  /** The quantization label as written in the file name, e.g. `Q4_K_M`, `UD-Q4_K_XL`. */
  label: string;
  /** Its entry in the file-type code table, where it has one. */
  fileType: { name: string; code: number } | undefined;
}

/** File-name spellings that stand for another file type (gpt-oss files say MXFP4). */
const ALIASES: Readonly<Record<string, string>> = { MXFP4: 'MXFP4_MOE' };

/** The enum's table: names to codes (and, as a TypeScript enum, codes back to names). */
const FILE_TYPES: Readonly<Record<string, number | string>> = GGMLFileQuantizationType;

/**
 * The quantization type of a GGUF file from its name (`Llama-3.2-1B-Instruct-Q4_K_M.gguf` →
 * `Q4_K_M`, code 15), with the parser of @huggingface/tasks; the last quantization-looking part
 * of the name wins. Undefined when the name holds none.
 */
export function ggufQuantType(params: { fileName: string }): GgufQuantType | undefined {
  const base = params.fileName.split('/').pop() ?? params.fileName;
  const label = parseGGUFQuantLabel(base);
  if (!label) return undefined;
  const bare = label.replace(/^UD-/, '');
  const name = ALIASES[bare] ?? bare;
  const code = FILE_TYPES[name];
  return { label, fileType: typeof code === 'number' ? { name, code } : undefined };
}
