import { useId, useState } from 'react';
import {
  checkSetting,
  checkSystemPrompt,
  defaultSettings,
  isSampling,
  settingRanges,
  type GenerationSettings,
  type NumericSetting,
} from '../../shared/generation-settings';

export interface SettingsFormProps {
  settings: GenerationSettings;
  /** `?maxTokens=` cap: the highest Max new tokens. */
  maxTokensCap: number;
  onChange: (patch: Partial<GenerationSettings>) => void;
}

const FIELDS: NumericSetting[] = ['temperature', 'topP', 'maxNewTokens', 'repetitionPenalty'];

function NumberField({
  field,
  value,
  maxTokensCap,
  onValid,
}: {
  field: NumericSetting;
  value: number;
  maxTokensCap: number;
  onValid: (value: number) => void;
}) {
  const range = settingRanges(maxTokensCap)[field];
  // What the person is typing, while it differs from the stored value (e.g. "0." or "3").
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  return (
    <div className="setting">
      <label htmlFor={id}>{range.label}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={range.min}
        max={range.max}
        step={range.step}
        value={draft ?? String(value)}
        aria-invalid={error !== null}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => {
          const text = e.target.value;
          setDraft(text);
          const check = checkSetting(field, text, maxTokensCap);
          if (check.ok) {
            setError(null);
            onValid(check.value);
          } else setError(check.error);
        }}
        onBlur={() => {
          if (error === null) setDraft(null);
        }}
      />
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Generation settings of the current conversation; only valid values are sent. */
export function SettingsForm({ settings, maxTokensCap, onChange }: SettingsFormProps) {
  const promptId = useId();
  const [promptError, setPromptError] = useState<string | null>(null);
  return (
    <form
      className="settings-form"
      aria-label="Generation settings"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="setting setting-wide">
        <label htmlFor={promptId}>System prompt</label>
        <textarea
          id={promptId}
          rows={2}
          value={settings.systemPrompt}
          placeholder="(none)"
          aria-invalid={promptError !== null}
          onChange={(e) => {
            const problem = checkSystemPrompt(e.target.value);
            setPromptError(problem);
            if (problem === null) onChange({ systemPrompt: e.target.value });
          }}
        />
        {promptError && (
          <p className="field-error" role="alert">
            {promptError}
          </p>
        )}
      </div>
      {FIELDS.map((field) => (
        <NumberField
          key={field}
          field={field}
          value={settings[field]}
          maxTokensCap={maxTokensCap}
          onValid={(value) => onChange({ [field]: value })}
        />
      ))}
      <p className="settings-hint">
        {isSampling(settings)
          ? `Sampling (temperature ${settings.temperature}, top p ${settings.topP}): replies vary.`
          : 'Greedy decoding (temperature 0): the same prompt gives the same reply.'}{' '}
        <button
          type="button"
          className="link-button"
          onClick={() => onChange(defaultSettings(maxTokensCap))}
        >
          Restore defaults
        </button>
      </p>
    </form>
  );
}
