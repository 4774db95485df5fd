/**
 * The panel's Advanced section (closed by default): every option of the training table's basic
 * and advanced groups as a labelled input or select, its default for the method as placeholder,
 * the effective batch, and a refused value's allowed range beside it (Start is blocked meanwhile).
 */
import { useId } from 'react';
import type { TrainingMethod } from '../../shared/training-api';
import {
  allowedText,
  defaultFor,
  formatFieldNumber,
  type TrainingField,
} from '../../shared/training-fields';
import { FORM_FIELDS, type OptionError } from './training-form';
import './advanced.css';

export interface AdvancedOptionsProps {
  /** What was typed, by option name ('' or absent: the default). */
  values: Readonly<Record<string, string>>;
  method: TrainingMethod;
  errors: readonly OptionError[];
  disabled?: boolean;
  onChange: (name: string, value: string) => void;
}

const shown = (value: unknown) =>
  typeof value === 'number' ? formatFieldNumber(value) : String(value);

function defaultText(field: TrainingField, method: TrainingMethod): string {
  const value = defaultFor(field, method);
  if (value === null) return field.name === 'epochs' ? 'off (Max steps)' : 'none';
  if (value === '')
    return field.name === 'base_revision'
      ? 'main'
      : field.name === 'chat_template'
        ? "the base model's own"
        : 'none';
  return shown(value);
}

function numberOf(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return text && Number.isFinite(value) ? value : fallback;
}

export function AdvancedOptions({
  values,
  method,
  errors,
  disabled = false,
  onChange,
}: AdvancedOptionsProps) {
  const id = useId();
  const batch = numberOf(values.batch_size, Number(defaultFor('batch_size', method)));
  const accum = numberOf(values.grad_accum, Number(defaultFor('grad_accum', method)));
  const changed = FORM_FIELDS.filter((f) => (values[f.name] ?? '').trim() !== '').length;
  return (
    <details className="training-advanced">
      <summary>
        Advanced{changed > 0 ? ` (${changed} changed)` : ''}
        {errors.length > 0 ? ` · ${errors.length} to fix` : ''}
      </summary>
      <fieldset className="training-advanced-fields" disabled={disabled}>
        <legend className="sr-only">Advanced training options</legend>
        {FORM_FIELDS.map((field) => {
          const inputId = `${id}-${field.name}`;
          const error = errors.find((e) => e.name === field.name);
          const hint = `${inputId}-hint`;
          const errorId = `${inputId}-error`;
          const fallback = defaultText(field, method);
          const common = {
            id: inputId,
            name: field.name,
            value: values[field.name] ?? '',
            'aria-invalid': error ? true : undefined,
            'aria-describedby': error ? `${errorId} ${hint}` : hint,
          } as const;
          return (
            <div className="training-option" key={field.name}>
              <label htmlFor={inputId}>
                {field.label}
                {field.unit ? <span className="training-unit"> ({field.unit})</span> : null}
              </label>
              {field.type === 'enum' ? (
                <select {...common} onChange={(e) => onChange(field.name, e.target.value)}>
                  <option value="">Default ({fallback})</option>
                  {(field.values ?? []).map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : field.type === 'template' ? (
                <textarea
                  {...common}
                  className="training-template"
                  rows={6}
                  maxLength={field.max_length}
                  placeholder={fallback}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => onChange(field.name, e.target.value)}
                />
              ) : field.type === 'string' ? (
                <input
                  {...common}
                  type="text"
                  maxLength={field.max_length}
                  placeholder={fallback}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => onChange(field.name, e.target.value)}
                />
              ) : (
                <input
                  {...common}
                  type="number"
                  inputMode="decimal"
                  min={field.min}
                  max={field.max}
                  step={field.type === 'int' ? 1 : 'any'}
                  placeholder={fallback}
                  autoComplete="off"
                  onChange={(e) => onChange(field.name, e.target.value)}
                />
              )}
              {error && (
                <p className="field-error" id={errorId} role="alert">
                  {field.label} {error.message} (allowed: {allowedText(field)})
                </p>
              )}
              <p className="training-hint" id={hint}>
                {field.help} Default: {fallback}.
              </p>
            </div>
          );
        })}
        <p className="training-effective-batch" aria-live="polite">
          Effective batch: {batch} × {accum} = {batch * accum} examples per step (per process)
        </p>
      </fieldset>
    </details>
  );
}
