import { describe, expect, it } from 'vitest';
import { TASKS_DATA } from '@huggingface/tasks';
import { getTaskInfo } from './get-task-info';
import { HubError } from './hub-error';

describe('getTaskInfo', () => {
  it('the task info record, libraries resolved to labels', () => {
    const info = getTaskInfo({ taskId: 'token-classification' });
    expect(info).toMatchObject({
      id: 'token-classification',
      label: 'Token Classification',
      modality: 'nlp',
      summary: TASKS_DATA['token-classification']?.summary,
      isPlaceholder: false,
    });
    expect(info?.libraries.map((l) => l.prettyLabel)).toContain('Transformers');
    expect(info?.metrics.map((m) => m.id)).toContain('f1');
    expect(info?.demo.outputs[0]?.type).toBe('text-with-tokens');
  });

  it('undefined for a task without a page; unknown-task for a non-task', () => {
    expect(getTaskInfo({ taskId: 'graph-ml' })).toBeUndefined();
    expect(() => getTaskInfo({ taskId: 'not-a-task' })).toThrow(HubError);
    expect(() => getTaskInfo({ taskId: 'not-a-task' })).toThrow(
      '"not-a-task" is not a task of the catalogue.',
    );
  });
});
