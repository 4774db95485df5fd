import { MODEL_LIBRARIES_UI_ELEMENTS, type LibraryUiElement } from '@huggingface/tasks';
import type { LibraryRef } from './types';

const LIBRARIES: Readonly<Record<string, LibraryUiElement | undefined>> =
  MODEL_LIBRARIES_UI_ELEMENTS;

/** Display data of a library key (label, repository, docs); unknown keys get their key as label. */
export function libraryRef(key: string): LibraryRef {
  const entry = LIBRARIES[key];
  if (!entry) return { key, prettyLabel: key, repoUrl: '' };
  return {
    key,
    prettyLabel: entry.prettyLabel,
    repoUrl: entry.repoUrl,
    ...(entry.docsUrl ? { docsUrl: entry.docsUrl } : {}),
  };
}
