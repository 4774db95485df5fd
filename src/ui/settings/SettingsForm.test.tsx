import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SettingsForm } from './SettingsForm';
import { defaultSettings } from '../../shared/generation-settings';

function setup() {
  const onChange = vi.fn();
  render(<SettingsForm settings={defaultSettings(48)} maxTokensCap={48} onChange={onChange} />);
  return { onChange, user: userEvent.setup() };
}

describe('SettingsForm', () => {
  it('labelled controls with today’s defaults', () => {
    setup();
    expect(screen.getByLabelText('System prompt')).toHaveValue('');
    expect(screen.getByLabelText('Temperature')).toHaveValue(0);
    expect(screen.getByLabelText('Top p')).toHaveValue(1);
    expect(screen.getByLabelText('Max new tokens')).toHaveValue(48);
    expect(screen.getByLabelText('Repetition penalty')).toHaveValue(1);
    expect(screen.getByText(/Greedy decoding/)).toBeInTheDocument();
  });

  it('sends valid values', async () => {
    const { onChange, user } = setup();
    const t = screen.getByLabelText('Temperature');
    await user.clear(t);
    await user.type(t, '1.5');
    expect(onChange).toHaveBeenLastCalledWith({ temperature: 1.5 });
    await user.type(screen.getByLabelText('System prompt'), 'B');
    expect(onChange).toHaveBeenLastCalledWith({ systemPrompt: 'B' });
  });

  it.each([
    ['Temperature', '3', 'Temperature must be a number from 0 to 2.'],
    ['Max new tokens', '49', 'Max new tokens must be a whole number from 1 to 48.'],
    ['Max new tokens', '0', 'Max new tokens must be a whole number from 1 to 48.'],
    ['Top p', '0', 'Top p must be a number from 0.05 to 1.'],
  ])('refuses %s = %s with the allowed range', async (label, value, message) => {
    const { onChange, user } = setup();
    const box = screen.getByLabelText(label);
    await user.clear(box);
    onChange.mockClear();
    await user.type(box, value);
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(onChange).not.toHaveBeenCalledWith(expect.objectContaining({ [label]: Number(value) }));
    const sent: unknown[] = onChange.mock.calls.map(
      (c) => Object.values(c[0] as object)[0] as unknown,
    );
    expect(sent).not.toContain(Number(value));
  });
});
