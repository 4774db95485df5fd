import {
  ALL_MODEL_LIBRARY_KEYS,
  MODEL_LIBRARIES_UI_ELEMENTS,
  type LibraryUiElement,
} from '@huggingface/tasks';
import { libraryRef } from './library-ref';
import { KNOWN_SNIPPET_MESSAGES } from './messages';
import type { LibrarySnippets, ModelRecord, SnippetItem } from './types';
import { errorMessage } from '../shared/errors';

const LIBRARIES: Readonly<Record<string, LibraryUiElement | undefined>> =
  MODEL_LIBRARIES_UI_ELEMENTS;
const LIBRARY_KEYS: ReadonlySet<string> = new Set(ALL_MODEL_LIBRARY_KEYS);

/** `# ⚠️ text`, `// ⚠️ text`, `# text` → `text`. */
function unwrapComment(line: string): string {
  return line
    .trim()
    .replace(/^(?:#|\/\/)\s*/, '')
    .replace(/^⚠️\s*/, '')
    .trim();
}

const WARNING_COMMENT = /^\s*(?:#|\/\/)\s*⚠️/;

/**
 * One generated string → what the view shows. The generators signal missing information with a
 * snippet that is only a (warning) comment: that becomes a message, its text unwrapped. A warning
 * comment heading real code (paddlenlp's generic loader) becomes a note above that code.
 */
function toItem(snippet: string): SnippetItem {
  const trimmed = snippet.trim();
  const [first = '', ...rest] = trimmed.split('\n');
  const text = unwrapComment(first);
  if (rest.length === 0 && (KNOWN_SNIPPET_MESSAGES.has(text) || WARNING_COMMENT.test(first))) {
    return { kind: 'message', text };
  }
  if (rest.length > 0 && WARNING_COMMENT.test(first)) {
    return { kind: 'code', code: rest.join('\n').trim(), note: text };
  }
  return { kind: 'code', code: trimmed };
}

/** The record's library: `library_name`, else the first tag that names a library. */
function libraryKeyOf(record: ModelRecord): string | undefined {
  if (record.library_name) return record.library_name;
  return record.tags.find((tag) => LIBRARY_KEYS.has(tag));
}

/**
 * The library usage snippets of a model, from the generators of
 * @huggingface/tasks: diffusers variants by tags and pipeline_tag, keras-hub tasks, PaddleOCR
 * class names, peft, sklearn, speechbrain, NeMo… Missing information yields PRODUCT.md §4's messages
 * as `{ kind: 'message' }` items in place of a snippet; a generator that throws yields a message
 * too, never an exception. `library` overrides the record's own library.
 */
export function getLibrarySnippets(params: {
  record: ModelRecord;
  library?: string;
}): LibrarySnippets {
  const { record } = params;
  const key = params.library ?? libraryKeyOf(record);
  if (!key) {
    return {
      library: undefined,
      items: [
        {
          kind: 'message',
          text: 'The record names no library (no library_name, and no tag names one), so there is no library snippet.',
        },
      ],
    };
  }
  const entry = LIBRARIES[key];
  const library = libraryRef(key);
  if (!entry) {
    return {
      library,
      items: [{ kind: 'message', text: `"${key}" is not a library the Hub knows.` }],
    };
  }
  if (!entry.snippets) {
    const where = entry.docsUrl ?? entry.repoUrl;
    return {
      library,
      items: [
        { kind: 'message', text: `${entry.prettyLabel} has no usage snippet; see ${where}.` },
      ],
    };
  }
  try {
    const items = entry.snippets(record).map(toItem);
    return {
      library,
      items:
        items.length > 0
          ? items
          : [{ kind: 'message', text: 'The library gave no snippet for this model.' }],
    };
  } catch (error) {
    const reason = errorMessage(error);
    return {
      library,
      items: [{ kind: 'message', text: `Could not generate the snippet: ${reason}` }],
    };
  }
}
