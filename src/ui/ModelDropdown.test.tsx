import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { ModelDropdown } from './ModelDropdown';

const options = [
  { value: 'a', label: 'Alpha' },
  { value: 'b', label: 'Beta', hint: '1 GB' },
];

describe('ModelDropdown', () => {
  it('shows the placeholder variants', () => {
    const { rerender } = render(<ModelDropdown options={options} placeholder="Choose LLM model" />);
    expect(screen.getByRole('button')).toHaveTextContent('Choose LLM model');
    rerender(<ModelDropdown options={options} />);
    expect(screen.getByRole('button')).toHaveTextContent('Select an LLM Model');
  });

  it('uncontrolled: picking an option shows it and reports it', async () => {
    const onChange = vi.fn();
    render(<ModelDropdown options={options} onChange={onChange} />);
    await userEvent.click(screen.getByRole('button'));
    await userEvent.click(screen.getByRole('option', { name: /Beta/ }));
    expect(onChange).toHaveBeenCalledWith('b');
    expect(screen.getByRole('button')).toHaveTextContent('Beta');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it('controlled: shows the value from props, not its own', async () => {
    const onChange = vi.fn();
    render(<ModelDropdown options={options} value="a" onChange={onChange} />);
    await userEvent.click(screen.getByRole('button'));
    await userEvent.click(screen.getByRole('option', { name: /Beta/ }));
    expect(onChange).toHaveBeenCalledWith('b');
    expect(screen.getByRole('button')).toHaveTextContent('Alpha');
  });

  it('controlled with state works end to end', async () => {
    function Host() {
      const [v, setV] = useState('');
      return <ModelDropdown options={options} value={v} onChange={setV} />;
    }
    render(<Host />);
    await userEvent.click(screen.getByRole('button'));
    await userEvent.click(screen.getByRole('option', { name: /Alpha/ }));
    expect(screen.getByRole('button')).toHaveTextContent('Alpha');
  });

  it('a blank or whitespace-only value means no selection: placeholder shown', () => {
    render(<ModelDropdown options={[...options, { value: '', label: 'Empty' }]} value="   " />);
    expect(screen.getByRole('button')).toHaveTextContent('Select an LLM Model');
  });

  it('disabled: does not open', async () => {
    render(<ModelDropdown options={options} disabled />);
    expect(screen.getByRole('button')).toBeDisabled();
    await userEvent.click(screen.getByRole('button'));
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it('closes on an outside click', async () => {
    render(
      <div>
        <ModelDropdown options={options} />
        <p>outside</p>
      </div>,
    );
    await userEvent.click(screen.getByRole('button'));
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    await userEvent.click(screen.getByText('outside'));
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });

  it("shows 'No models available' for an empty list", async () => {
    render(<ModelDropdown options={[]} />);
    await userEvent.click(screen.getByRole('button'));
    expect(screen.getByRole('listbox')).toHaveTextContent('No models available');
  });

  it('keyboard: arrows move, Enter picks, Escape closes', async () => {
    const onChange = vi.fn();
    render(<ModelDropdown options={options} onChange={onChange} />);
    screen.getByRole('button').focus();
    await userEvent.keyboard('{ArrowDown}');
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    await userEvent.keyboard('{ArrowDown}{Enter}');
    expect(onChange).toHaveBeenCalledWith('b');
    await userEvent.keyboard('{ArrowDown}{Escape}');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });
});
