import { useEffect, useRef } from 'react';
import type { ExampleRepo } from '@huggingface/tasks';
import { getTaskInfo } from '../../hub/get-task-info';
import type { TaskEntry } from '../../hub/types';
import { TaskDemoView } from './TaskDemo';

const HUB = 'https://huggingface.co';

function Repos({ title, repos, base }: { title: string; repos: ExampleRepo[]; base: string }) {
  if (repos.length === 0) return null;
  return (
    <section>
      <h4>{title}</h4>
      <ul className="hub-repos">
        {repos.map((repo) => (
          <li key={repo.id}>
            <a href={`${base}/${repo.id}`} target="_blank" rel="noreferrer">
              {repo.id}
            </a>
            {repo.description && <span className="hub-muted"> — {repo.description}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A task's info record: summary, demo, metrics, example models and datasets, libraries. */
export function TaskDetail({ task, onBack }: { task: TaskEntry; onBack: () => void }) {
  const info = getTaskInfo({ taskId: task.key });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <article className="hub-task-detail" aria-labelledby="hub-task-title">
      <button type="button" className="hub-link-button" onClick={onBack}>
        ← Back to the catalogue
      </button>
      <h3 id="hub-task-title" ref={heading} tabIndex={-1}>
        {task.name}
      </h3>
      <p className="hub-muted">
        <code>{task.key}</code>
        {info?.isPlaceholder ? ' · placeholder page' : ''}
        {info?.canonicalId ? ` · see ${info.canonicalId}` : ''}
      </p>
      {!info ? (
        <p>This task has no task page yet.</p>
      ) : (
        <>
          <p className="hub-summary">{info.summary}</p>
          <TaskDemoView taskId={info.id} demo={info.demo} />
          {info.metrics.length > 0 && (
            <section>
              <h4>Metrics</h4>
              <dl className="hub-metrics">
                {info.metrics.map((m) => (
                  <div key={m.id}>
                    <dt>{m.id}</dt>
                    <dd>{m.description || '—'}</dd>
                  </div>
                ))}
              </dl>
            </section>
          )}
          <Repos title="Example models" repos={info.models} base={HUB} />
          <Repos title="Example datasets" repos={info.datasets} base={`${HUB}/datasets`} />
          <Repos title="Example spaces" repos={info.spaces} base={`${HUB}/spaces`} />
          {info.libraries.length > 0 && (
            <section>
              <h4>Compatible libraries</h4>
              <ul className="hub-inline-list">
                {info.libraries.map((lib) => (
                  <li key={lib.key}>
                    {lib.repoUrl ? (
                      <a href={lib.docsUrl ?? lib.repoUrl} target="_blank" rel="noreferrer">
                        {lib.prettyLabel}
                      </a>
                    ) : (
                      lib.prettyLabel
                    )}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {info.youtubeId && (
            <p>
              <a
                href={`https://www.youtube.com/watch?v=${info.youtubeId}`}
                target="_blank"
                rel="noreferrer"
              >
                Video introduction to {task.name}
              </a>
            </p>
          )}
        </>
      )}
    </article>
  );
}
