import { GGMLFileQuantizationType, GGMLQuantizationType } from '@huggingface/tasks';

export interface QuantCode {
  name: string;
  code: number;
}

export interface GgufQuantTables {
  /** `general.file_type` of a GGUF file (llama_ftype): F32=0, F16=1, …, BF16=32. */
  fileTypes: QuantCode[];
  /** Tensor types (ggml_type): F32=0, F16=1, …, Q8_0=8. */
  tensorTypes: QuantCode[];
}

function table(enumObject: Readonly<Record<string, string | number>>): QuantCode[] {
  return Object.entries(enumObject)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
    .map(([name, code]) => ({ name, code }))
    .sort((a, b) => a.code - b.code);
}

/**
 * The two GGUF quantization code tables (file types and tensor types), read from the enums of @huggingface/tasks
 * (file types and tensor types), each sorted by code.
 */
export function ggufQuantTables(): GgufQuantTables {
  return {
    fileTypes: table(GGMLFileQuantizationType),
    tensorTypes: table(GGMLQuantizationType),
  };
}
