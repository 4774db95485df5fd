import { isObject } from './guards';
import { MAX_TOKENS_LIMIT } from './token-limits';

export { MAX_TOKENS_LIMIT };

/**
 * Generation settings: the one definition of their defaults and allowed ranges. The chat, the
 * worker, 'Format Input' and the settings form all read these constants.
 */

/** Longest chat reply by default (today's behaviour). */
export const DEFAULT_MAX_NEW_TOKENS = 1024;
/** 'Format Input' on the local model writes ten Q/A pairs: it needs a longer budget. */
export const DATASET_MAX_NEW_TOKENS = 2048;

export interface GenerationSettings {
  /** Sent as a system message before the conversation; '' = none. */
  systemPrompt: string;
  /** 0 = greedy (deterministic); above 0 samples. */
  temperature: number;
  /** Nucleus sampling mass (only with temperature above 0). */
  topP: number;
  maxNewTokens: number;
  /** 1 = off. */
  repetitionPenalty: number;
}

export type NumericSetting = Exclude<keyof GenerationSettings, 'systemPrompt'>;

interface Range {
  label: string;
  min: number;
  max: number;
  step: number;
  integer: boolean;
}

export const SYSTEM_PROMPT_MAX_LENGTH = 8000;

/** The allowed range of each numeric setting; `max` of Max new tokens is the `?maxTokens=` cap. */
export function settingRanges(maxTokensCap: number): Record<NumericSetting, Range> {
  return {
    temperature: { label: 'Temperature', min: 0, max: 2, step: 0.1, integer: false },
    topP: { label: 'Top p', min: 0.05, max: 1, step: 0.05, integer: false },
    maxNewTokens: { label: 'Max new tokens', min: 1, max: maxTokensCap, step: 1, integer: true },
    repetitionPenalty: {
      label: 'Repetition penalty',
      min: 1,
      max: 2,
      step: 0.05,
      integer: false,
    },
  };
}

/** Today's behaviour: greedy, no system prompt, up to the cap (default 1,024 tokens). */
export function defaultSettings(maxTokensCap: number = DEFAULT_MAX_NEW_TOKENS): GenerationSettings {
  return {
    systemPrompt: '',
    temperature: 0,
    topP: 1,
    maxNewTokens: Math.min(DEFAULT_MAX_NEW_TOKENS, maxTokensCap),
    repetitionPenalty: 1,
  };
}

export type SettingCheck = { ok: true; value: number } | { ok: false; error: string };

/** Checks one typed value; the error names the allowed range. */
export function checkSetting(
  field: NumericSetting,
  raw: string,
  maxTokensCap: number,
): SettingCheck {
  const range = settingRanges(maxTokensCap)[field];
  const text = raw.trim();
  const value = Number(text);
  const allowed = range.integer
    ? `a whole number from ${range.min} to ${range.max}`
    : `a number from ${range.min} to ${range.max}`;
  if (text === '' || !Number.isFinite(value) || value < range.min || value > range.max)
    return { ok: false, error: `${range.label} must be ${allowed}.` };
  if (range.integer && !Number.isInteger(value))
    return { ok: false, error: `${range.label} must be ${allowed}.` };
  return { ok: true, value };
}

export function checkSystemPrompt(text: string): string | null {
  return text.length > SYSTEM_PROMPT_MAX_LENGTH
    ? `System prompt must be at most ${SYSTEM_PROMPT_MAX_LENGTH.toLocaleString('en-US')} characters.`
    : null;
}

/**
 * Settings from an untrusted source (an imported file, an old record): every field checked,
 * anything missing or out of range replaced by its default; Max new tokens clamped to the cap.
 */
export function sanitizeSettings(value: unknown, maxTokensCap: number): GenerationSettings {
  const base = defaultSettings(maxTokensCap);
  if (!isObject(value)) return base;
  const record = value;
  const out = { ...base };
  if (typeof record.systemPrompt === 'string' && checkSystemPrompt(record.systemPrompt) === null)
    out.systemPrompt = record.systemPrompt;
  for (const field of ['temperature', 'topP', 'repetitionPenalty'] as const) {
    const v = record[field];
    if (typeof v === 'number') {
      const check = checkSetting(field, String(v), maxTokensCap);
      if (check.ok) out[field] = check.value;
    }
  }
  const max = record.maxNewTokens;
  if (typeof max === 'number' && Number.isInteger(max) && max >= 1)
    out.maxNewTokens = Math.min(max, maxTokensCap);
  return out;
}

/** Sampling is on when the temperature is above 0; otherwise decoding is greedy. */
export function isSampling(settings: Pick<GenerationSettings, 'temperature'>): boolean {
  return settings.temperature > 0;
}

/**
 * A model's recommended settings from its generation_config.json: its sampling when it samples by
 * default (DeepSeek R1 Distill: temperature 0.6, top p 0.95), its repetition penalty. Values out of
 * the allowed ranges are left out.
 */
export function recommendedFromGenerationConfig(config: unknown): Partial<GenerationSettings> {
  if (!isObject(config)) return {};
  const c = config;
  const out: Partial<GenerationSettings> = {};
  const take = (field: NumericSetting, value: unknown) => {
    if (typeof value !== 'number') return;
    const check = checkSetting(field, String(value), MAX_TOKENS_LIMIT);
    if (check.ok) out[field] = check.value;
  };
  if (c.do_sample === true) {
    take('temperature', c.temperature);
    take('topP', c.top_p);
  }
  if (typeof c.repetition_penalty === 'number' && c.repetition_penalty > 1)
    take('repetitionPenalty', c.repetition_penalty);
  return out;
}

/**
 * A new conversation's settings for a model: the defaults with the model's recommendations on top,
 * Max new tokens within the cap.
 */
export function settingsFor(
  recommended: Partial<GenerationSettings> | null | undefined,
  maxTokensCap: number,
): GenerationSettings {
  return sanitizeSettings({ ...defaultSettings(maxTokensCap), ...recommended }, maxTokensCap);
}
