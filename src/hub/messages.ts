/**
 * The snippet messages, exactly as the user sees them. The generators of
 * @huggingface/tasks emit them wrapped as code comments (`# ⚠️ …`, `// ⚠️ …`);
 * get-library-snippets unwraps them so the view shows the text itself in place of a snippet.
 */
export const SNIPPET_MESSAGES = {
  typeUnknown: 'Type of model unknown',
  typeUnknownDot: 'Type of model unknown.',
  sklearnFilename: 'Model filename not specified in config.json',
  peftTask: 'Task type is invalid.',
  peftBase: 'Base model is not found.',
  speechbrainMissing: 'interface not specified in config.json',
  speechbrainInvalid: 'interface in config.json invalid',
  unknownPipelineTag: 'Unknown pipeline tag',
  nemoDomain: 'tag did not correspond to a valid NeMo domain.',
  espnetUnknown: 'unknown model type (must be text-to-speech or automatic-speech-recognition)',
  noInputExample: 'No input example has been defined for this model task.',
} as const;

export const KNOWN_SNIPPET_MESSAGES: ReadonlySet<string> = new Set(Object.values(SNIPPET_MESSAGES));
