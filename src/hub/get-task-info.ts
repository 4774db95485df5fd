import {
  PIPELINE_DATA,
  PIPELINE_TYPES_SET,
  TASKS_DATA,
  type PipelineType,
} from '@huggingface/tasks';
import { HubError } from './hub-error';
import { libraryRef } from './library-ref';
import type { TaskInfo } from './types';

const PIPELINE_TYPE_IDS: ReadonlySet<string> = PIPELINE_TYPES_SET;

function isPipelineType(id: string): id is PipelineType {
  return PIPELINE_TYPE_IDS.has(id);
}

/**
 * The task info record of a task (summary, metrics, example models and datasets, demo), from
 * @huggingface/tasks. Returns undefined for a known task without a task page (e.g. `graph-ml`);
 * throws {@link HubError} `unknown-task` for an id that is not a task.
 */
export function getTaskInfo(params: { taskId: string }): TaskInfo | undefined {
  const { taskId } = params;
  if (!isPipelineType(taskId)) {
    throw new HubError('unknown-task', `"${taskId}" is not a task of the catalogue.`);
  }
  const id = taskId;
  const data = TASKS_DATA[id];
  if (!data) return undefined;
  return {
    id,
    label: data.label,
    modality: PIPELINE_DATA[id].modality,
    summary: data.summary,
    libraries: data.libraries.map(libraryRef),
    metrics: data.metrics,
    models: data.models,
    datasets: data.datasets,
    spaces: data.spaces,
    demo: data.demo,
    widgetModels: data.widgetModels,
    ...(data.youtubeId ? { youtubeId: data.youtubeId } : {}),
    isPlaceholder: data.isPlaceholder ?? false,
    ...(data.canonicalId ? { canonicalId: data.canonicalId } : {}),
  };
}
