import { describe, expect, it } from 'vitest';
import {
  MODALITIES,
  PIPELINE_DATA,
  PIPELINE_TYPES,
  TASKS_MODEL_LIBRARIES,
} from '@huggingface/tasks';
import { listTasks } from './list-tasks';

describe('listTasks', () => {
  it('every task of the library, grouped by modality in the library order', () => {
    const groups = listTasks();
    expect(groups.map((g) => g.modality)).toEqual(
      MODALITIES.filter((m) => PIPELINE_TYPES.some((t) => PIPELINE_DATA[t].modality === m)),
    );
    expect(groups.flatMap((g) => g.tasks)).toHaveLength(PIPELINE_TYPES.length);
    expect(PIPELINE_TYPES.length).toBeGreaterThan(45);
    const cv = groups.find((g) => g.modality === 'cv');
    expect(cv?.label).toBe('Computer Vision');
    expect(cv?.tasks.every((t) => t.modality === 'cv')).toBe(true);
  });

  it('carries name, subtasks, flags and compatible libraries', () => {
    const task = listTasks()
      .flatMap((g) => g.tasks)
      .find((t) => t.key === 'text-classification');
    expect(task).toMatchObject({
      name: 'Text Classification',
      modality: 'nlp',
      hideInModels: false,
      hasInfo: true,
      libraries: TASKS_MODEL_LIBRARIES['text-classification'],
    });
    expect(task?.subtasks.map((s) => s.name)).toContain('Sentiment Classification');
  });

  it('respects hideInModels / hideInDatasets per audience', () => {
    const keys = (audience: 'all' | 'models' | 'datasets') =>
      listTasks({ audience }).flatMap((g) => g.tasks.map((t) => t.key));
    const hiddenInModels = PIPELINE_TYPES.filter(
      (t) =>
        'hideInModels' in PIPELINE_DATA[t] &&
        (PIPELINE_DATA[t] as { hideInModels?: boolean }).hideInModels,
    );
    const hiddenInDatasets = PIPELINE_TYPES.filter(
      (t) => (PIPELINE_DATA[t] as { hideInDatasets?: boolean }).hideInDatasets,
    );
    expect(hiddenInModels.length).toBeGreaterThan(0);
    expect(hiddenInDatasets.length).toBeGreaterThan(0);
    expect(keys('models')).toHaveLength(PIPELINE_TYPES.length - hiddenInModels.length);
    for (const t of hiddenInModels) expect(keys('models')).not.toContain(t);
    for (const t of hiddenInDatasets) expect(keys('datasets')).not.toContain(t);
    expect(keys('all')).toHaveLength(PIPELINE_TYPES.length);
  });

  it('searches names, ids, subtasks and libraries, case-insensitively', () => {
    const keys = (query: string) => listTasks({ query }).flatMap((g) => g.tasks.map((t) => t.key));
    expect(keys('SPEECH')).toEqual(
      expect.arrayContaining(['automatic-speech-recognition', 'text-to-speech']),
    );
    expect(keys('sentiment')).toContain('text-classification');
    expect(keys('no such task at all')).toEqual([]);
    expect(listTasks({ query: 'depth' }).map((g) => g.modality)).toEqual(['cv']);
  });
});
