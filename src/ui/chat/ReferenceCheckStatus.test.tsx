import { describe, expect, it } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createActor } from 'xstate';
import { modelMachine } from '../../machines/modelMachine';
import { fakeWorker } from '../../machines/test-helpers';
import { MODELS } from '../../shared/models';
import type { ReferenceCheck } from '../../shared/reference-check';
import { ModelPanel } from './ModelPanel';
import { ReferenceCheckStatus } from './ReferenceCheckStatus';
import { divergedCheck, TRAINED_WITH_REFERENCE } from '../../shared/reference-check.fixtures';

const TRAINED = TRAINED_WITH_REFERENCE;

/** The model bar with a trained model loaded and its check under way. */
function loadedTrained() {
  const actor = createActor(modelMachine, {
    input: { worker: fakeWorker(), models: MODELS, shaderF16: false },
  }).start();
  actor.send({ type: 'model.add', id: TRAINED.id, option: TRAINED });
  actor.send({ type: 'model.load' });
  actor.send({
    type: 'worker.ready',
    message: { status: 'ready', data: { id: TRAINED.id, dtype: 'q4', checking: true } },
  });
  render(<ModelPanel model={actor} compact />);
  const report = (check: ReferenceCheck) =>
    act(() =>
      actor.send({
        type: 'worker.reference',
        message: { status: 'reference', id: TRAINED.id, dtype: 'q4', check },
      }),
    );
  return { actor, report };
}

describe('ModelPanel — checked on this GPU', () => {
  it('checking, then the same answer: a status beside the model', async () => {
    const { report } = loadedTrained();
    expect(await screen.findByRole('status')).toHaveTextContent(
      "Checking on this GPU: replaying the trainer's answer…",
    );
    report({ result: 'agreed', dtype: 'q4', steps: 16, compared: 16 });
    expect(screen.getByRole('status')).toHaveTextContent(
      "✓Checked on this GPU: the same answer as the trainer'sq4 · 16 tokens replayed, 16 with a clear lead compared",
    );
    expect(screen.getByRole('status')).toHaveClass('reference-check-ok');
  });

  it('a divergence is a visible warning, not an alert; Load stays as it was', async () => {
    const { report } = loadedTrained();
    await screen.findByRole('status');
    report(divergedCheck({ step: 3 }));
    const status = screen.getByRole('status');
    expect(status).toHaveClass('reference-check-warning');
    expect(status).toHaveTextContent(
      "Checked on this GPU: step 3 differs from the trainer's answer (token 512 instead of 87, whose lead was 2.41). The model stays usable; if its answers look wrong, try the other variant (fp32 instead of q4).",
    );
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: 'Load model' })).toBeDisabled();
  });

  it("a divergence with another variant offers 'Load fp32 instead', which loads it; without one, no button", async () => {
    const { actor, report } = loadedTrained();
    await screen.findByRole('status');
    report(divergedCheck({ step: 3, alternative: 'fp32' }));
    const button = screen.getByRole('button', { name: 'Load fp32 instead' });
    button.focus();
    await userEvent.keyboard('{Enter}');
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    const entry = actor.getSnapshot().context.models.find((m) => m.value === TRAINED.value);
    expect([entry?.dtype, entry?.fallback]).toEqual(['fp32', undefined]);
  });

  it('no other variant runs here: the warning says so and offers no button', async () => {
    const { report } = loadedTrained();
    await screen.findByRole('status');
    report(divergedCheck({ step: 3, alternative: null }));
    expect(screen.getByRole('status')).toHaveTextContent(
      'no other variant of it runs on this GPU.',
    );
    expect(screen.queryByRole('button', { name: /instead/ })).toBeNull();
  });

  it('while a reply streams, Load fp32 instead asks first; Keep writing keeps it, Stop reply and load stops and loads', async () => {
    const user = userEvent.setup();
    const calls: string[] = [];
    render(
      <ReferenceCheckStatus
        check={divergedCheck({ step: 3, alternative: 'fp32' })}
        generating
        onStopReply={() => calls.push('stop')}
        onLoadAlternative={(dtype) => calls.push(`load ${dtype}`)}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Load fp32 instead' }));
    expect(screen.getByRole('group', { name: 'Stop the reply?' })).toHaveTextContent(
      'A reply is being written. Stop it and load fp32?',
    );
    await user.click(screen.getByRole('button', { name: 'Keep writing' }));
    expect(calls).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Load fp32 instead' }));
    await user.click(screen.getByRole('button', { name: 'Stop reply and load' }));
    expect(calls).toEqual(['stop', 'load fp32']);
  });

  it('a model the trainer did not export shows nothing', () => {
    const actor = createActor(modelMachine, {
      input: { worker: fakeWorker(), models: MODELS, shaderF16: true },
    }).start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'onnx-community/x', dtype: 'q4f16' } },
    });
    render(<ModelPanel model={actor} compact />);
    expect(screen.queryByRole('status')).toBeNull();
  });
});
