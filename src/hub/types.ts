/** Types shared by the hub adapter functions and their views. */
import type {
  ExampleRepo,
  InferenceSnippetLanguage,
  Modality,
  ModelData,
  ModelLibraryKey,
  PipelineData,
  PipelineType,
  TaskDemo,
} from '@huggingface/tasks';

/** A subtask of a task (type and name). */
export type SubTask = NonNullable<PipelineData['subtasks']>[number];

/**
 * A model record as the snippet generators read it (the Hub's `/api/models/{id}` answer, reduced to
 * the validated fields), plus the repo's file list used by the GGUF and "Load in chat" checks.
 */
export interface ModelRecord extends ModelData {
  siblings?: Array<{ rfilename: string }>;
}

/** A field of a record that was present but unusable (wrong type): dropped, and reported. */
export interface RecordIssue {
  /** Dotted path, e.g. `config.peft.task_type`. */
  path: string;
  message: string;
}

export interface ParsedModelRecord {
  record: ModelRecord;
  issues: RecordIssue[];
}

/** One task of the catalogue. */
export interface TaskEntry {
  key: PipelineType;
  name: string;
  modality: Modality;
  subtasks: SubTask[];
  hideInModels: boolean;
  hideInDatasets: boolean;
  /** Compatible library keys, from the library's task-to-library mapping. */
  libraries: ModelLibraryKey[];
  /** Whether the task has a task info record (a detail page). */
  hasInfo: boolean;
}

export interface TaskGroup {
  modality: Modality;
  label: string;
  tasks: TaskEntry[];
}

export interface LibraryRef {
  key: string;
  prettyLabel: string;
  repoUrl: string;
  docsUrl?: string;
}

/** The task info record, with library labels resolved for display. */
export interface TaskInfo {
  id: PipelineType;
  label: string;
  modality: Modality;
  summary: string;
  libraries: LibraryRef[];
  metrics: ExampleRepo[];
  models: ExampleRepo[];
  datasets: ExampleRepo[];
  spaces: ExampleRepo[];
  demo: TaskDemo;
  widgetModels: string[];
  youtubeId?: string;
  isPlaceholder: boolean;
  canonicalId?: PipelineType;
}

/**
 * What the view shows in one snippet slot: code (optionally with a note above it, e.g. paddlenlp's
 * 'Type of model unknown' before its generic loader) or a message in place of the snippet.
 */
export type SnippetItem =
  { kind: 'code'; code: string; note?: string } | { kind: 'message'; text: string };

export interface LibrarySnippets {
  /** The library the snippets are for; undefined when the record names none. */
  library: LibraryRef | undefined;
  items: SnippetItem[];
}

export interface InferenceSnippetItem {
  language: InferenceSnippetLanguage;
  client: string;
  content: string;
}

export interface InferenceSnippets {
  /** Chat-completion snippets (text-generation, image-text-to-text): streaming applies. */
  conversational: boolean;
  snippets: InferenceSnippetItem[];
  /** Shown in place of the snippets when there are none. */
  message?: string;
}
