import {
  MODALITIES,
  MODALITY_LABELS,
  PIPELINE_DATA,
  PIPELINE_TYPES,
  TASKS_DATA,
  TASKS_MODEL_LIBRARIES,
  type PipelineData,
} from '@huggingface/tasks';
import type { TaskEntry, TaskGroup } from './types';

/** Which Hub listing the catalogue is for: its hide flags apply (`all` shows every task). */
export type TaskAudience = 'all' | 'models' | 'datasets';

function matches(task: TaskEntry, needle: string): boolean {
  if (needle === '') return true;
  const haystack = [
    task.key,
    task.name,
    ...task.subtasks.flatMap((s) => [s.type, s.name]),
    ...task.libraries,
  ];
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

/**
 * The task catalogue of @huggingface/tasks grouped by modality, in the library's modality order,
 * tasks sorted by name. `query` filters (case-insensitive) on id, name, subtasks and libraries;
 * `audience` drops the tasks hidden in that Hub listing (`hideInModels` / `hideInDatasets`).
 * Empty groups are left out.
 */
export function listTasks(params: { query?: string; audience?: TaskAudience } = {}): TaskGroup[] {
  const needle = (params.query ?? '').trim().toLowerCase();
  const audience = params.audience ?? 'all';
  const entries: TaskEntry[] = PIPELINE_TYPES.map((key) => {
    const data: PipelineData = PIPELINE_DATA[key];
    return {
      key,
      name: data.name,
      modality: data.modality,
      subtasks: data.subtasks ?? [],
      hideInModels: data.hideInModels ?? false,
      hideInDatasets: data.hideInDatasets ?? false,
      libraries: TASKS_MODEL_LIBRARIES[key] ?? [],
      hasInfo: TASKS_DATA[key] !== undefined,
    };
  });
  const visible = entries.filter(
    (task) =>
      !(audience === 'models' && task.hideInModels) &&
      !(audience === 'datasets' && task.hideInDatasets) &&
      matches(task, needle),
  );
  return MODALITIES.map((modality) => ({
    modality,
    label: MODALITY_LABELS[modality],
    tasks: visible
      .filter((task) => task.modality === modality)
      .sort((a, b) => a.name.localeCompare(b.name)),
  })).filter((group) => group.tasks.length > 0);
}
