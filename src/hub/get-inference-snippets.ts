import { getModelInputSnippet } from '@huggingface/tasks';
import {
  PROVIDERS_OR_POLICIES,
  getProviderHelper,
  snippets,
  type InferenceProviderOrPolicy,
  type InferenceTask,
} from '@huggingface/inference';
import { SNIPPET_MESSAGES } from './messages';
import type { InferenceSnippets, ModelRecord } from './types';
import { errorMessage } from '../shared/errors';

/** The providers (and the `auto` policy) a snippet can be made for, for a provider picker. */
export const INFERENCE_PROVIDER_CHOICES: readonly InferenceProviderOrPolicy[] =
  PROVIDERS_OR_POLICIES;

/** Tasks the inference library answers with chat-completion snippets. */
const CONVERSATIONAL_TASKS: ReadonlySet<string> = new Set([
  'text-generation',
  'image-text-to-text',
]);

function reasonOf(error: unknown): string {
  return errorMessage(error);
}

/**
 * Inference snippets (JS, Python, shell) of a model for a provider, from
 * `snippets.getInferenceSnippets` of @huggingface/inference. Conversational models get chat
 * completion, streamed when `streaming`. Where no snippet can be made the result carries a
 * `message` instead: 'No input example has been defined for this model task.' for a task without
 * an example input, the provider's own reason when it does not serve the task, the template
 * error ('Template not found…') when a template is missing. Never throws.
 */
export function getInferenceSnippets(params: {
  record: ModelRecord;
  provider?: InferenceProviderOrPolicy;
  streaming?: boolean;
}): InferenceSnippets {
  const { record, provider = 'hf-inference', streaming = false } = params;
  const tag = record.pipeline_tag;
  const conversational = tag !== undefined && CONVERSATIONAL_TASKS.has(tag);
  const none = (message: string): InferenceSnippets => ({ conversational, snippets: [], message });

  if (getModelInputSnippet(record) === SNIPPET_MESSAGES.noInputExample) {
    return none(SNIPPET_MESSAGES.noInputExample);
  }
  // Checked here so the library's own console logging of this failure is not the only trace.
  // (`other`, the one tag that is no inference task, has no input example: it returned above.)
  const task: InferenceTask | undefined = conversational
    ? 'conversational'
    : tag === 'other'
      ? undefined
      : tag;
  try {
    getProviderHelper(provider, task);
  } catch (error) {
    return none(reasonOf(error));
  }
  try {
    const result = snippets.getInferenceSnippets(record, provider, undefined, { streaming });
    if (result.length === 0) {
      return none(
        `No inference snippet is defined for ${tag ?? 'this task'} with provider ${provider}.`,
      );
    }
    return {
      conversational,
      snippets: result.map(({ language, client, content }) => ({ language, client, content })),
    };
  } catch (error) {
    return none(`Could not generate the snippets: ${reasonOf(error)}`);
  }
}
