import { useId, useMemo, useState } from 'react';
import { listTasks, type TaskAudience } from '../../hub/list-tasks';
import { libraryRef } from '../../hub/library-ref';
import type { TaskEntry } from '../../hub/types';
import { TaskDetail } from './TaskDetail';

const AUDIENCES: readonly TaskAudience[] = ['all', 'models', 'datasets'];

function TaskCard({ task, onOpen }: { task: TaskEntry; onOpen: () => void }) {
  return (
    <article className="hub-task-card">
      <h4>
        <button type="button" className="hub-link-button" onClick={onOpen}>
          {task.name}
        </button>
      </h4>
      <code className="hub-task-key">{task.key}</code>
      {(task.hideInModels || task.hideInDatasets) && (
        <p className="hub-flags">
          {task.hideInModels && <span className="hub-badge">hidden in models</span>}
          {task.hideInDatasets && <span className="hub-badge">hidden in datasets</span>}
        </p>
      )}
      {task.subtasks.length > 0 && (
        <p>
          <span className="hub-term">Subtasks: </span>
          {task.subtasks.map((s) => s.name).join(', ')}
        </p>
      )}
      <p>
        <span className="hub-term">Libraries: </span>
        {task.libraries.length > 0
          ? task.libraries.map((key) => libraryRef(key).prettyLabel).join(', ')
          : 'none listed'}
      </p>
    </article>
  );
}

/** Finds a task by id among all tasks (the id comes from the URL). */
function findTask(id: string): TaskEntry | undefined {
  for (const group of listTasks()) {
    const task = group.tasks.find((t) => t.key === id);
    if (task) return task;
  }
  return undefined;
}

/**
 * The task catalogue grouped by modality, with a search box and the hide flags as a filter.
 * The open task is given from outside (the URL, `#/hub/tasks/<id>`), so Back returns to the list.
 */
export function TaskCatalogue({
  openTaskId = null,
  onOpenTask,
}: {
  openTaskId?: string | null;
  onOpenTask?: (id: string | null) => void;
} = {}) {
  const searchId = useId();
  const [query, setQuery] = useState('');
  const [audience, setAudience] = useState<TaskAudience>('all');
  const [ownOpen, setOwnOpen] = useState<string | null>(null);
  const openId = onOpenTask ? openTaskId : ownOpen;
  const setOpen = onOpenTask ?? setOwnOpen;
  const groups = useMemo(() => listTasks({ query, audience }), [query, audience]);
  const count = groups.reduce((sum, g) => sum + g.tasks.length, 0);
  const open = openId ? findTask(openId) : undefined;

  if (open) return <TaskDetail task={open} onBack={() => setOpen(null)} />;
  return (
    <div className="hub-catalogue">
      {openId && (
        <p role="alert" className="hub-error">
          There is no task &quot;{openId}&quot; in the catalogue.
        </p>
      )}
      <div className="hub-toolbar" role="search">
        <label htmlFor={searchId}>Search tasks</label>
        <input
          id={searchId}
          type="search"
          value={query}
          placeholder="e.g. speech, sentiment, diffusers"
          onChange={(e) => setQuery(e.target.value)}
        />
        <label>
          Show{' '}
          <select
            value={audience}
            onChange={(e) => {
              const chosen = AUDIENCES.find((a) => a === e.target.value);
              if (chosen) setAudience(chosen);
            }}
          >
            <option value="all">all tasks</option>
            <option value="models">tasks listed for models</option>
            <option value="datasets">tasks listed for datasets</option>
          </select>
        </label>
      </div>
      <p className="hub-muted" aria-live="polite">
        {count === 0
          ? `No task matches "${query.trim()}".`
          : `${count} ${count === 1 ? 'task' : 'tasks'}`}
      </p>
      {groups.map((group) => (
        <section key={group.modality} aria-labelledby={`hub-modality-${group.modality}`}>
          <h3 id={`hub-modality-${group.modality}`}>
            {group.label} ({group.tasks.length})
          </h3>
          <ul className="hub-task-grid">
            {group.tasks.map((task) => (
              <li key={task.key}>
                <TaskCard task={task} onOpen={() => setOpen(task.key)} />
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
