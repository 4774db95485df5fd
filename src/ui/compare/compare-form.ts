/**
 * Compare's form as plain data: what the user has chosen ({@link CompareForm}), how the route and a
 * run's default pair settle it ({@link settleForm}), and the evaluation it asks for
 * ({@link buildSetup}). No React here: the hook (useCompareForm.ts) keeps the state.
 */
import type { EvalModel, EvaluationSetup } from '../../machines/evaluationMachine';
import { checkSetting, defaultSettings } from '../../shared/generation-settings';
import type { ModelOption } from '../../shared/models';
import type { RunInfo } from '../../shared/training-api';
import { defaultPair } from './defaults';
import type { SourceKind } from './QuestionSource';
import type { ParsedQuestions } from './questions';

/** Compare's answers are short by default (within the app's cap). */
const COMPARE_MAX_NEW_TOKENS = 256;

export interface CompareForm {
  /** The `?run=` the form last followed. */
  route: string | null;
  kind: SourceKind;
  runId: string;
  pasted: string;
  /** Models A and B (their option values; '' for none). */
  a: string;
  b: string;
  /** The run whose default pair has filled A and B (later choices by hand stay). */
  defaultsFor: string | null;
  temperature: string;
  maxTokens: string;
  systemPrompt: string;
}

/** The fields a user edits. */
export type FormFields = Omit<CompareForm, 'route' | 'defaultsFor'>;

/** The form as it opens: on a `?run=` link, that run's held-out questions; else pasted ones. */
export function initialForm(route: string | null, cap: number): CompareForm {
  return {
    route,
    kind: route ? 'held-out' : 'pasted',
    runId: route ?? '',
    pasted: '',
    a: '',
    b: '',
    defaultsFor: null,
    temperature: '0',
    maxTokens: String(Math.min(COMPARE_MAX_NEW_TOKENS, cap)),
    systemPrompt: '',
  };
}

/** What the form is settled against. */
export interface FormContext {
  route: string | null;
  runs: readonly RunInfo[];
  choices: readonly ModelOption[];
  /** Whether the service's model list is still being read (a run's defaults wait for it). */
  trainedPending: boolean;
}

/**
 * The form once it has followed `context`: a new `?run=` (a link from the training panel) chooses
 * that run's held-out set; a run's default pair fills A and B once the models are known, once per
 * run (a choice made by hand afterwards stays). Returns `form` itself when nothing changes.
 */
export function settleForm(form: CompareForm, context: FormContext): CompareForm {
  let settled = form;
  if (settled.route !== context.route) {
    const { route } = context;
    settled = { ...settled, route, runId: route ?? '', kind: route ? 'held-out' : settled.kind };
  }
  const run = context.runs.find((r) => r.id === settled.runId);
  if (run && settled.defaultsFor !== run.id && !context.trainedPending) {
    const pair = defaultPair(run, context.choices);
    settled = { ...settled, defaultsFor: run.id, a: pair.a ?? settled.a, b: pair.b ?? settled.b };
  }
  return settled;
}

/** What {@link buildSetup} reads besides the form. */
export interface SetupContext {
  choices: readonly ModelOption[];
  /** The app's cap on new tokens. */
  cap: number;
  questions: ParsedQuestions | { ok: null; pending: string };
  /** How the worker loads a model. */
  specOf: (option: ModelOption) => EvalModel['spec'];
  id: string;
  now: number;
}

/** The evaluation the form asks for and its two models' options, or why it cannot start. */
type SetupResult =
  | { ok: true; setup: EvaluationSetup; options: [ModelOption, ModelOption] }
  | { ok: false; error: string };

/** Checks the form (models, settings, questions, in that order) and builds the evaluation. */
export function buildSetup(form: FormFields, context: SetupContext): SetupResult {
  const { choices, cap, questions, specOf } = context;
  const optionA = choices.find((m) => m.value === form.a);
  const optionB = choices.find((m) => m.value === form.b);
  if (!optionA || !optionB) return { ok: false, error: 'Choose model A and model B.' };
  const temperature = checkSetting('temperature', form.temperature, cap);
  if (!temperature.ok) return temperature;
  const maxNewTokens = checkSetting('maxNewTokens', form.maxTokens, cap);
  if (!maxNewTokens.ok) return maxNewTokens;
  if (questions.ok === null)
    return { ok: false, error: 'The questions are still being read; try again in a moment.' };
  if (questions.ok === false && !questions.empty) return { ok: false, error: questions.error };
  const evalModel = (option: ModelOption): EvalModel => ({
    value: option.value,
    label: option.label,
    id: option.id,
    spec: specOf(option),
  });
  return {
    ok: true,
    options: [optionA, optionB],
    setup: {
      id: context.id,
      createdAt: context.now,
      a: evalModel(optionA),
      b: evalModel(optionB),
      questions: questions.ok ? questions.questions : [],
      settings: {
        ...defaultSettings(cap),
        temperature: temperature.value,
        maxNewTokens: maxNewTokens.value,
        systemPrompt: form.systemPrompt.trim(),
      },
      source: form.kind === 'pasted' ? { kind: 'pasted' } : { kind: form.kind, runId: form.runId },
    },
  };
}
