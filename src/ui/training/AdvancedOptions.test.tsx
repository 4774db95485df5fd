import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { TRAINING_PARAMS } from '../../shared/training-api';
import { ADVANCED_FIELDS, TRAINING_FIELDS } from '../../shared/training-fields';
import { renderPanel, serveTrainingMock } from '../../../tests/component/training-panel';
import { AdvancedOptions } from './AdvancedOptions';
import { FORM_FIELDS, formOptions } from './training-form';

vi.mock('uplot', () => import('../../../tests/component/uplot-stub'));

const { mock } = serveTrainingMock({ stepsPerPoll: 60 });

function Harness({ method = 'lora' as const }: { method?: 'lora' | 'full' }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const { errors } = formOptions({ method, options: values });
  return (
    <AdvancedOptions
      values={values}
      method={method}
      errors={errors}
      onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
    />
  );
}

const label = (name: string) => {
  const field = TRAINING_FIELDS.find((f) => f.name === name);
  if (!field) throw new Error(name);
  return new RegExp(`^${field.label}`);
};

describe('AdvancedOptions', () => {
  it('closed by default; a labelled control for every advanced field and the four basic ones', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const summary = screen.getByText('Advanced');
    expect(summary.closest('details')).not.toHaveAttribute('open');
    await user.click(summary);
    expect(summary.closest('details')).toHaveAttribute('open');
    for (const field of [...ADVANCED_FIELDS, ...FORM_FIELDS]) {
      const control = screen.getByLabelText(label(field.name));
      expect(control).toBeVisible();
      if (field.type === 'enum') expect(control.tagName).toBe('SELECT');
      else if (field.type === 'template') {
        expect(control.tagName).toBe('TEXTAREA');
        expect(control).toHaveAttribute('maxlength', String(field.max_length));
      } else if (field.type === 'string') {
        expect(control).toHaveAttribute('type', 'text');
        expect(control).toHaveAttribute('maxlength', String(field.max_length));
      } else {
        expect(control).toHaveAttribute('type', 'number');
        expect(control).toHaveAttribute('min', String(field.min));
        expect(control).toHaveAttribute('max', String(field.max));
      }
    }
    // Every control queried by its label twice over: slow in jsdom on a loaded machine.
  }, 20_000);

  it("learning rate shows the method's own default", () => {
    const { rerender } = render(<Harness />);
    expect(screen.getByLabelText(label('lr'))).toHaveAttribute('placeholder', '2e-4');
    rerender(<Harness method="full" />);
    expect(screen.getByLabelText(label('lr'))).toHaveAttribute('placeholder', '2e-5');
  });

  it('an out-of-range value shows the allowed range; the effective batch follows', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.type(screen.getByLabelText(label('eval_fraction')), '0.9');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Held-out share must be at most 0.5 (allowed: 0–0.5)',
    );
    expect(screen.getByLabelText(label('eval_fraction'))).toHaveAttribute('aria-invalid', 'true');
    await user.type(screen.getByLabelText(label('batch_size')), '4');
    await user.type(screen.getByLabelText(label('grad_accum')), '4');
    expect(screen.getByText(/Effective batch: 4 × 4 = 16/)).toBeInTheDocument();
  });
});

describe('the panel with Advanced', () => {
  it('sends the four basic values always and only the changed advanced ones; a refused value blocks Start', async () => {
    const user = userEvent.setup();
    renderPanel();
    await screen.findByText(/Plan:/, {}, { timeout: 5000 });
    await user.click(screen.getByText('Advanced'));
    await user.click(screen.getByRole('radio', { name: /Full fine-tuning/ }));
    await user.type(screen.getByLabelText(label('batch_size')), '4');
    await user.type(screen.getByLabelText(label('seed')), '42'); // the default: not sent
    await user.type(screen.getByLabelText(label('grad_accum')), '0');
    const start = screen.getByRole('button', { name: 'Train Model' });
    expect(start).toBeDisabled();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Gradient accumulation must be greater than 0 (allowed: 1–1,024)',
    );
    await user.clear(screen.getByLabelText(label('grad_accum')));
    await user.type(screen.getByLabelText(label('grad_accum')), '2');
    await waitFor(() => expect(start).toBeEnabled());
    // The plan follows the form: 4 × 2.
    expect(await screen.findByText(/effective batch 8/, {}, { timeout: 3000 })).toBeInTheDocument();
    await user.click(start);
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    const { script_path, output_dir, data_file, base_model, ...sent } = mock.starts[0] ?? {};
    expect([script_path, output_dir, data_file, base_model].every(Boolean)).toBe(true);
    expect(sent).toEqual({
      ...TRAINING_PARAMS,
      lr: 2e-5,
      method: 'full',
      batch_size: 4,
      grad_accum: 2,
      export_base: true,
    });
    // The Runs list names the options that differ from the method's defaults.
    expect(
      await screen.findByText('Batch size 4 · Gradient accumulation 2', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
  }, 20_000);

  it('a base revision is sent as typed; one with a space is refused beside the field', async () => {
    const user = userEvent.setup();
    renderPanel();
    await screen.findByText(/Plan:/, {}, { timeout: 5000 });
    await user.click(screen.getByText('Advanced'));
    const revision = screen.getByLabelText(label('base_revision'));
    expect(revision).toHaveAttribute('placeholder', 'main');
    await user.type(revision, 'my tag');
    const start = screen.getByRole('button', { name: 'Train Model' });
    expect(start).toBeDisabled();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Base model revision must be printable characters without spaces (allowed: printable characters without spaces, at most 200)',
    );
    await user.clear(revision);
    await user.type(revision, 'v1.0');
    await waitFor(() => expect(start).toBeEnabled());
    await user.click(start);
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]).toMatchObject({ base_revision: 'v1.0' });
    expect(
      await screen.findByText('Base model revision v1.0', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
  }, 20_000);

  it('a chat template is sent exactly as pasted, whitespace and all; the Runs list gives its length', async () => {
    const user = userEvent.setup();
    renderPanel();
    await screen.findByText(/Plan:/, {}, { timeout: 5000 });
    await user.click(screen.getByText('Advanced'));
    const field = screen.getByLabelText(label('chat_template'));
    expect(field).toHaveAttribute('placeholder', "the base model's own");
    const template =
      '{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}' +
      '{% if add_generation_prompt %}<|assistant|>\n{% endif %}\n';
    await user.click(field);
    await user.paste(template);
    const start = screen.getByRole('button', { name: 'Train Model' });
    await waitFor(() => expect(start).toBeEnabled());
    await user.click(start);
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]?.chat_template).toBe(template);
    expect(
      await screen.findByText(
        `Chat template (${template.length} characters)`,
        {},
        { timeout: 5000 },
      ),
    ).toBeInTheDocument();
  }, 20_000);

  it("a blank chat template is the base's own: nothing is sent", async () => {
    const user = userEvent.setup();
    renderPanel();
    await screen.findByText(/Plan:/, {}, { timeout: 5000 });
    await user.click(screen.getByText('Advanced'));
    await user.click(screen.getByLabelText(label('chat_template')));
    await user.paste('  \n ');
    await user.click(screen.getByRole('button', { name: 'Train Model' }));
    await waitFor(() => expect(mock.starts).toHaveLength(1));
    expect(mock.starts[0]).not.toHaveProperty('chat_template');
  }, 20_000);

  it('the options are kept with the form across a reload (and an old saved form still loads)', async () => {
    localStorage.setItem('training.form.v1', JSON.stringify({ baseModel: 'x/y', method: 'full' }));
    const user = userEvent.setup();
    renderPanel();
    await user.type(await screen.findByLabelText(label('lora_r')), '8');
    expect(JSON.parse(localStorage.getItem('training.form.v1') ?? '{}')).toMatchObject({
      baseModel: 'x/y',
      method: 'full',
      options: { lora_r: '8' },
    });
  });
});
