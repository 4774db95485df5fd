import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  MODALITIES,
  MODALITY_LABELS,
  PIPELINE_DATA,
  PIPELINE_TYPES,
  type PipelineData,
} from '@huggingface/tasks';
import { TaskCatalogue } from './TaskCatalogue';

const data = (key: (typeof PIPELINE_TYPES)[number]): PipelineData => PIPELINE_DATA[key];

// The catalogue is a large tree: role queries over all of it are slow in jsdom, so the big lookups
// go by element and text (the elements are the accessible ones: h3 headings, real buttons).
const taskButton = (name: string) => screen.queryByText(name, { selector: 'button' });
const button = (name: string) => screen.getByText(name, { selector: 'button' });

// Rendering ~60 cards in jsdom takes seconds on a shared 2-core machine.
describe('TaskCatalogue', { timeout: 20_000 }, () => {
  it('one heading per modality with the count of tasks the library gives it', () => {
    render(<TaskCatalogue />);
    for (const modality of MODALITIES) {
      const count = PIPELINE_TYPES.filter((t) => data(t).modality === modality).length;
      if (count === 0) continue;
      const heading = screen.getByText(`${MODALITY_LABELS[modality]} (${count})`, {
        selector: 'h3',
      });
      const section = heading.closest('section');
      expect(section).not.toBeNull();
      expect(within(section as HTMLElement).getAllByRole('listitem')).toHaveLength(count);
    }
    expect(screen.getByText(`${PIPELINE_TYPES.length} tasks`)).toBeInTheDocument();
  });

  it('a card shows name, subtasks and compatible libraries', () => {
    render(<TaskCatalogue />);
    const card = button('Token Classification').closest('article') as HTMLElement;
    expect(within(card).getByText(/Named Entity Recognition/)).toBeInTheDocument();
    expect(within(card).getByText(/Transformers\.js/)).toBeInTheDocument();
  });

  it('search narrows the catalogue; no match says so', async () => {
    const user = userEvent.setup();
    render(<TaskCatalogue />);
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'depth');
    expect(taskButton('Depth Estimation')).toBeInTheDocument();
    expect(taskButton('Text Classification')).not.toBeInTheDocument();
    expect([...document.querySelectorAll('h3')].map((h) => h.textContent)).toEqual([
      'Computer Vision (1)',
    ]);
    await user.clear(screen.getByRole('searchbox', { name: 'Search tasks' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search tasks' }), 'zzz nothing');
    expect(screen.getByText('No task matches "zzz nothing".')).toBeInTheDocument();
  });

  it('the models filter hides the tasks flagged hideInModels', async () => {
    const user = userEvent.setup();
    render(<TaskCatalogue />);
    const hidden = PIPELINE_TYPES.filter((t) => data(t).hideInModels);
    const [first] = hidden;
    // The library flags some tasks hideInModels; without one the filter would have nothing to hide.
    if (!first) throw new Error('@huggingface/tasks flags no task hideInModels');
    expect(taskButton(data(first).name)).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Show' }), 'models');
    expect(screen.getByText(`${PIPELINE_TYPES.length - hidden.length} tasks`)).toBeInTheDocument();
    expect(taskButton(data(first).name)).not.toBeInTheDocument();
  });

  it('task detail: summary, metrics, examples and the demo rendered by type', async () => {
    const user = userEvent.setup();
    render(<TaskCatalogue />);
    await user.click(button('Token Classification'));
    expect(screen.getByRole('heading', { level: 3, name: 'Token Classification' })).toHaveFocus();
    expect(screen.getByRole('heading', { name: 'Metrics' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Example models' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'eriktks/conll2003' })).toHaveAttribute(
      'href',
      'https://huggingface.co/datasets/eriktks/conll2003',
    );
    // text-with-tokens: the entity spans marked with their type, not a JSON dump
    const omar = screen.getByText('Omar', { selector: 'mark, mark *' });
    expect(omar.closest('mark')).toHaveTextContent('OmarPERSON');
    expect(document.body.textContent).not.toMatch(/"type":|"tokens"/);
    await user.click(button('← Back to the catalogue'));
    expect(screen.getByRole('searchbox', { name: 'Search tasks' })).toBeInTheDocument();
  });

  it('chart, image and table demos', async () => {
    const user = userEvent.setup();
    render(<TaskCatalogue />);
    await user.click(button('Image Classification'));
    expect(screen.getByRole('img', { name: /^Input image/ })).toHaveAttribute(
      'src',
      expect.stringMatching(
        /^https:\/\/huggingface\.co\/datasets\/huggingfacejs\/tasks\/resolve\/main\/image-classification\//,
      ),
    );
    expect(
      within(screen.getByRole('list', { name: 'Scores' })).getAllByRole('listitem').length,
    ).toBeGreaterThan(1);
    await user.click(button('← Back to the catalogue'));
    await user.click(button('Tabular Classification'));
    expect(screen.getAllByRole('table').length).toBeGreaterThan(0);
    expect(screen.getAllByRole('columnheader').length).toBeGreaterThan(1);
  });

  // Regression: a search with one match said "1 tasks".
  it('one match reads "1 task"', async () => {
    const user = userEvent.setup();
    render(<TaskCatalogue />);
    await user.type(screen.getByLabelText('Search tasks'), 'zero-shot-object');
    expect(screen.getByText('1 task')).toBeInTheDocument();
  });
});
