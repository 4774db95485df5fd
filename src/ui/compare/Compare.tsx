import { useSelector } from '@xstate/react';
import { useQuery } from '@tanstack/react-query';
import { Suspense, lazy, useMemo, useState, type FormEvent } from 'react';
import type { CompareServices } from '../../actors/compare-services';
// Only types from the app's own machines: a runtime import of them from this lazy chunk made the
// bundler split xstate out of the entry chunk, adding to the first load.
// Selector modules import the machines' types only, so they are safe here.
import type { AppActorRef } from '../../machines/appMachine';
import {
  selectChatRef,
  selectGate,
  selectMaxNewTokensCap,
  selectModelRef,
  selectReplyStallMs,
  selectWorkerRef,
} from '../../machines/appSelectors';
import { selectIsChatBusy } from '../../machines/chatSelectors';
import { selectIsModelLoading, selectModelOptions } from '../../machines/modelSelectors';
import type { EvalModel, EvaluationActorRef } from '../../machines/evaluationMachine';
import {
  selectError,
  selectHandedBack,
  selectIsRunning,
  selectPhase,
  selectRecord,
  selectRows,
  selectSaveError,
  selectSaves,
  selectSetup,
  selectStartError,
} from '../../machines/evaluationSelectors';
import { defaultSettings } from '../../shared/generation-settings';
import type { EvaluationRecord } from '../../shared/evaluation';
import { errorMessage } from '../../shared/errors';
import { evaluationActor } from './evaluation-actor';
import { loadSpecOf } from '../../shared/load-spec';
import { modelChoices } from './defaults';
import { buildSetup } from './compare-form';
import { useCompareForm } from './useCompareForm';
import { QuestionSource, useQuestions } from './QuestionSource';
import { Progress } from './Progress';
import { Results } from './Results';
import { SavedList } from './SavedList';

// Its own chunk: see CardNote.tsx (useMutation would otherwise weigh on the first load).
const CardNote = lazy(() => import('./CardNote'));

type ModelRef = NonNullable<ReturnType<typeof selectModelRef>>;

export function Compare({
  compare,
  app,
  runId: routeRun,
}: {
  compare: CompareServices;
  app: AppActorRef;
  runId: string | null;
}) {
  const gate = useSelector(app, selectGate);
  const model = useSelector(app, selectModelRef);
  const worker = useSelector(app, selectWorkerRef);
  const replySilenceMs = useSelector(app, selectReplyStallMs);
  const actor = useMemo(
    () =>
      worker ? evaluationActor(compare.logic, { worker, session: app, replySilenceMs }) : null,
    [compare.logic, worker, app, replySilenceMs],
  );
  return (
    <section className="compare" aria-labelledby="compare-title">
      <h1 id="compare-title">Compare models</h1>
      <p className="compare-muted">
        Did training help? Two models answer the same questions, one after the other on this device,
        with the same settings; each answer is scored against the reference answer.
      </p>
      {gate === 'checking' && <p className="status-text">Checking WebGPU support…</p>}
      {gate === 'unsupported' && (
        <p role="alert" className="chat-error">
          Comparing runs the models in this browser, which needs WebGPU; saved evaluations can still
          be read and exported below.
        </p>
      )}
      {actor && model ? (
        <Session compare={compare} app={app} actor={actor} model={model} routeRun={routeRun} />
      ) : (
        <Saved compare={compare} refreshOn={null} />
      )}
    </section>
  );
}

function Saved({ compare, refreshOn }: { compare: CompareServices; refreshOn: unknown }) {
  const [opened, setOpened] = useState<EvaluationRecord | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  return (
    <>
      {opened && (
        <>
          <p>
            Showing the saved evaluation of {new Date(opened.updatedAt).toLocaleString()} (
            {opened.status}).{' '}
            <button type="button" className="link-button" onClick={() => setOpened(null)}>
              Close it
            </button>
          </p>
          <Results record={opened} />
        </>
      )}
      {openError && (
        <p role="alert" className="chat-error">
          {openError}
        </p>
      )}
      <SavedList
        store={compare.store}
        refreshOn={refreshOn}
        openedId={opened?.id ?? null}
        onOpen={(id) =>
          void compare.store.get(id).then(
            (record) => {
              setOpened(record);
              setOpenError(null);
            },
            (error: unknown) => setOpenError(errorMessage(error)),
          )
        }
      />
    </>
  );
}

function Session({
  compare,
  app,
  actor,
  model,
  routeRun,
}: {
  compare: CompareServices;
  app: AppActorRef;
  actor: EvaluationActorRef;
  model: ModelRef;
  routeRun: string | null;
}) {
  const chat = useSelector(app, selectChatRef);
  const chatBusy = useSelector(chat ?? undefined, selectIsChatBusy);
  const cap = useSelector(app, selectMaxNewTokensCap) ?? defaultSettings().maxNewTokens;
  const pickerModels = useSelector(model, selectModelOptions);
  // One model at a time: a load the chat started must end before the comparison takes the worker.
  const chatLoading = useSelector(model, selectIsModelLoading);
  const runs = useQuery(compare.queries.runs());
  const trained = useQuery(compare.queries.models());
  const choices = useMemo(
    () => modelChoices(pickerModels, trained.data?.models ?? [], compare.trainingUrl),
    [pickerModels, trained.data, compare.trainingUrl],
  );

  const { form, edit, pair, temperatureCheck, maxTokensCheck, formError, setFormError } =
    useCompareForm({
      route: routeRun,
      runs: runs.data?.runs ?? [],
      choices,
      trainedPending: trained.isPending,
      cap,
    });
  const { kind, runId, a, b } = form;
  const setup = useSelector(actor, selectSetup);
  const questions = useQuestions(compare, kind, runId, form.pasted);

  const phase = useSelector(actor, selectPhase);
  const running = useSelector(actor, selectIsRunning);
  const error = useSelector(actor, selectError);
  const startError = useSelector(actor, selectStartError);
  const saveError = useSelector(actor, selectSaveError);
  const handedBack = useSelector(actor, selectHandedBack);
  const saves = useSelector(actor, selectSaves);
  // Saves before the view opened are not sent again to a model card.
  const [savesAtOpen] = useState(saves);
  const rows = useSelector(actor, selectRows);
  // A new record only when its rows or status change (not with every token written).
  const record = useSelector(
    actor,
    selectRecord,
    (x, y) => x?.id === y?.id && x?.rows === y?.rows && x?.status === y?.status,
  );

  // What the card's summary needs beyond the record: each side's dtype and Hub source.
  const facts = useMemo(() => {
    const side = (model: EvalModel) => ({
      dtype: model.spec.dtype,
      source: choices.find((m) => m.value === model.value)?.source ?? null,
    });
    return setup
      ? { a: side(setup.a), b: side(setup.b) }
      : { a: { dtype: null, source: null }, b: { dtype: null, source: null } };
  }, [setup, choices]);

  function start(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = buildSetup(form, {
      choices,
      cap,
      questions,
      specOf: (option) => loadSpecOf(option, model.getSnapshot().context),
      id: crypto.randomUUID(),
      now: Date.now(),
    });
    if (!result.ok) return setFormError(result.error);
    setFormError(null);
    // Trained models the picker does not list yet join it, so the chat can take B afterwards.
    for (const option of result.options)
      if (!pickerModels.some((m) => m.value === option.value))
        model.send({ type: 'model.add', id: option.id, option, select: false });
    actor.send({ type: 'evaluation.start', setup: result.setup });
  }

  const modelSelect = (label: string, value: string, set: (v: string) => void) => (
    <label className="compare-field">
      {label}
      <select value={value} disabled={running} onChange={(e) => set(e.target.value)}>
        <option value="">Choose a model…</option>
        {choices.map((m) => (
          <option key={m.value} value={m.value}>
            {m.label}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <>
      <form className="compare-form" onSubmit={start} aria-label="Comparison">
        <fieldset className="compare-fieldset" disabled={running}>
          <legend>Models</legend>
          <div className="compare-row">
            {modelSelect('Model A (before)', a, (v) => edit({ a: v }))}
            {modelSelect('Model B (after)', b, (v) => edit({ b: v }))}
          </div>
          {pair && <p className="compare-muted">{pair.note}</p>}
          {a !== '' && a === b && (
            <p className="compare-note">
              A and B are the same model: both answer with the same weights, so their answers differ
              only if sampling is on (temperature above 0). It is loaded once.
            </p>
          )}
          {trained.isError && (
            <p className="compare-muted">
              Trained models could not be listed ({errorMessage(trained.error)}); the picker's
              models are offered.
            </p>
          )}
        </fieldset>
        <fieldset className="compare-fieldset" disabled={running}>
          <QuestionSource
            kind={kind}
            onKind={(k) => edit({ kind: k })}
            runId={runId}
            onRun={(id) => edit({ runId: id })}
            runs={runs.data?.runs ?? []}
            pasted={form.pasted}
            onPasted={(text) => edit({ pasted: text })}
            questions={questions}
          />
        </fieldset>
        <fieldset className="compare-fieldset" disabled={running}>
          <legend>Settings (the same for both)</legend>
          <div className="compare-row">
            <label className="compare-field">
              Temperature
              <input
                inputMode="decimal"
                value={form.temperature}
                onChange={(e) => edit({ temperature: e.target.value })}
              />
            </label>
            <label className="compare-field">
              Max new tokens
              <input
                inputMode="numeric"
                value={form.maxTokens}
                onChange={(e) => edit({ maxTokens: e.target.value })}
              />
            </label>
          </div>
          {!temperatureCheck.ok && <p className="chat-error">{temperatureCheck.error}</p>}
          {!maxTokensCheck.ok && <p className="chat-error">{maxTokensCheck.error}</p>}
          <label className="compare-field">
            System prompt (optional)
            <textarea
              rows={2}
              value={form.systemPrompt}
              onChange={(e) => edit({ systemPrompt: e.target.value })}
            />
          </label>
          <p className="compare-muted">
            Temperature 0 answers greedily (repeatable). Each question is a fresh conversation: no
            earlier question or answer, no cache kept between questions.
          </p>
        </fieldset>
        <div className="compare-actions">
          {running ? (
            <button
              type="button"
              className="primary"
              disabled={phase === 'stopping'}
              onClick={() => actor.send({ type: 'evaluation.stop' })}
            >
              {phase === 'stopping' ? 'Stopping…' : 'Stop'}
            </button>
          ) : (
            <button type="submit" className="primary" disabled={chatBusy || chatLoading}>
              Compare
            </button>
          )}
          {(phase === 'failed' || phase === 'stopped') &&
            rows.some((r) => r.a === null || r.b === null) && (
              <button
                type="button"
                className="secondary"
                onClick={() => actor.send({ type: 'evaluation.retry' })}
              >
                {phase === 'failed' ? 'Retry' : 'Continue'}
              </button>
            )}
        </div>
        {chatBusy && !running && (
          <p className="compare-muted">
            The chat is writing a reply; stop it or wait for it to compare.
          </p>
        )}
        {chatLoading && !running && (
          <p className="compare-muted">
            The chat is loading a model; Compare can start once it is loaded.
          </p>
        )}
        {(formError ?? startError) && (
          <p role="alert" className="chat-error">
            {formError ?? startError}
          </p>
        )}
      </form>
      <Progress actor={actor} />
      {error && (
        <div role="alert" className="load-error">
          <p>The comparison stopped: {error}</p>
          <p className="load-error-hint">
            The answers so far are kept. Retry carries on from the first question not answered.
          </p>
        </div>
      )}
      {saveError && (
        <p role="alert" className="chat-error">
          {saveError}
        </p>
      )}
      <Suspense fallback={null}>
        <CardNote
          compare={compare}
          saves={saves}
          record={record}
          facts={facts}
          trained={trained.data?.models ?? []}
          hidden={running}
          since={savesAtOpen}
        />
      </Suspense>
      {handedBack && !running && (
        <p className="compare-note" role="status">
          The chat's model is now {handedBack}: the comparison left it loaded (one model at a time).
        </p>
      )}
      {running && (
        <p className="compare-muted">The chat waits while the comparison uses the model.</p>
      )}
      {record && <Results record={record} />}
      <Saved compare={compare} refreshOn={saves} />
    </>
  );
}
