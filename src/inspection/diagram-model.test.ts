import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, setup } from 'xstate';
import { appMachine } from '../machines/appMachine';
import { chatMachine } from '../machines/chatMachine';
import { modelMachine } from '../machines/modelMachine';
import { activeNodeIds, buildDiagramModel, type DiagramModel } from './diagram-model';

const states = (m: DiagramModel) => m.nodes.map((n) => `${n.id}:${n.type}${n.initial ? '*' : ''}`);
const transitions = (m: DiagramModel) =>
  m.edges.map((e) => `${e.source} --${e.label}--> ${e.internal ? '(self)' : e.target}`).sort();

describe('buildDiagramModel', () => {
  it('appMachine: the WebGPU gate, the invoke with onDone/onError, the session events', () => {
    const model = buildDiagramModel(appMachine);
    expect(states(model)).toEqual([
      'app:compound',
      'app.checking:atomic*',
      'app.unsupported:atomic',
      'app.supported:atomic',
    ]);
    expect(model.nodes.find((n) => n.id === 'app.checking')?.invokes).toEqual(['probeWebGPU']);
    expect(transitions(model)).toEqual(
      [
        'app.checking --done: probeWebGPU [isSupported]--> app.supported',
        'app.checking --done: probeWebGPU--> app.unsupported',
        'app.checking --error: probeWebGPU--> app.unsupported',
        'app.supported --worker.message--> (self)',
        'app.supported --dataset.generate [isEvaluating]--> (self)',
        'app.supported --dataset.generate--> (self)',
        'app.supported --dataset.cancel [not]--> (self)',
        'app.supported --evaluation.attach--> (self)',
        'app.supported --evaluation.detach--> (self)',
        'app.supported --store.*--> (self)',
      ].sort(),
    );
  });

  it('modelMachine: nesting, the stall timer, guards, re-entering self-transitions, lost', () => {
    const model = buildDiagramModel(modelMachine);
    expect(states(model)).toEqual([
      'model:compound',
      'model.none:atomic*',
      'model.loading:compound',
      'model.loading.waiting:compound*',
      'model.loading.waiting.alive:atomic*',
      'model.failed:atomic',
      'model.ready:compound',
      'model.ready.unchecked:atomic*',
      'model.ready.checking:atomic',
      'model.ready.checked:atomic',
      'model.lost:atomic',
    ]);
    expect(model.nodes.find((n) => n.id === 'model.loading.waiting')?.parent).toBe('model.loading');
    expect(transitions(model)).toEqual(
      [
        'model --model.add [isRepoId]--> (self)',
        'model --model.add [listsOnly]--> (self)',
        'model --worker.plan--> (self)',
        'model --worker.fault--> model.lost',
        'model.none --model.select--> (self)',
        'model.none --model.load [hasSelection]--> model.loading',
        'model.none --worker.error--> model.failed',
        'model.loading --worker.ready [announcesCheck]--> model.ready.checking',
        'model.loading --worker.ready--> model.ready',
        'model.loading --worker.error--> model.failed',
        'model.loading.waiting --worker.loading--> model.loading.waiting',
        'model.loading.waiting --worker.initiate--> model.loading.waiting',
        'model.loading.waiting --worker.progress--> model.loading.waiting',
        'model.loading.waiting --worker.done--> model.loading.waiting',
        'model.loading.waiting --after loadStall--> model.failed',
        'model.loading.waiting.alive --worker.alive--> model.loading.waiting.alive',
        'model.loading.waiting.alive --after loadSilence--> (self)',
        'model.failed --model.select [selectsAnotherModel]--> model.none',
        'model.failed --model.retry [hasSelection]--> model.loading',
        'model.failed --model.add [isRepoId]--> model.none',
        'model.failed --model.add [listsOnly]--> (self)',
        'model.ready --model.select--> (self)',
        'model.ready.checked --model.loadAlternative--> model.loading',
        'model.ready --model.load [canSwitch]--> model.loading',
        'model.ready.checking --worker.reference [checksLoaded]--> model.ready.checked',
        'model.lost --model.reload [hasSelection]--> model.loading',
        'model.lost --model.select [selectsAnotherModel]--> model.none',
      ].sort(),
    );
    const progress = model.edges.find((e) => e.event === 'worker.progress');
    expect(progress?.reenter).toBe(true);
    expect(model.edges.find((e) => e.kind === 'after')?.event).toBe('after loadStall');
  });

  it('chatMachine: root-level draft input and faults, generation, stop, reset, the stall timer', () => {
    const model = buildDiagramModel(chatMachine);
    expect(states(model)).toEqual([
      'chat:compound',
      'chat.unavailable:atomic*',
      'chat.idle:atomic',
      'chat.replying:compound',
      'chat.replying.generating:atomic*',
      'chat.replying.stopping:atomic',
      'chat.replying.resetting:atomic',
    ]);
    expect(transitions(model)).toEqual(
      [
        'chat --chat.input--> (self)',
        'chat --chat.settings--> (self)',
        // The context window: the refusal setting, the token count asked and answered.
        'chat --chat.whenTooLong--> (self)',
        'chat --worker.count--> (self)',
        'chat --chat.count--> (self)',
        'chat --worker.fault--> chat.unavailable',
        'chat.unavailable --worker.ready--> chat.idle',
        'chat.unavailable --chat.load--> (self)',
        'chat.idle --worker.loading--> chat.unavailable',
        'chat.idle --worker.ready--> (self)',
        'chat.idle --chat.load--> (self)',
        'chat.idle --chat.send [hasText]--> chat.replying',
        'chat.idle --chat.reset--> (self)',
        'chat.idle --chat.regenerate [hasReply]--> chat.replying',
        'chat.idle --chat.edit [isEditable]--> chat.replying',
        'chat.idle --chat.continue [endedAtLimit]--> chat.replying',
        'chat.idle --chat.version--> (self)',
        // How a reply ends, once for generating and stopping (resetting overrides it).
        'chat.replying --worker.complete--> chat.idle',
        'chat.replying --worker.error--> chat.idle',
        'chat.replying.generating --worker.alive--> chat.replying.generating',
        'chat.replying.generating --worker.start--> chat.replying.generating',
        'chat.replying.generating --worker.update--> chat.replying.generating',
        'chat.replying.generating --chat.stop--> chat.replying.stopping',
        'chat.replying.generating --chat.load--> chat.replying.resetting',
        'chat.replying.generating --chat.reset--> chat.replying.resetting',
        'chat.replying.generating --after replyStall--> chat.unavailable',
        'chat.replying.stopping --worker.alive--> chat.replying.stopping',
        'chat.replying.stopping --worker.update--> chat.replying.stopping',
        'chat.replying.stopping --chat.load--> chat.replying.resetting',
        'chat.replying.stopping --chat.reset--> chat.replying.resetting',
        'chat.replying.stopping --after replyStall--> chat.unavailable',
        'chat.replying.resetting --chat.load--> (self)',
        'chat.replying.resetting --worker.alive--> chat.replying.resetting',
        'chat.replying.resetting --worker.update--> chat.replying.resetting',
        'chat.replying.resetting --worker.complete--> chat.idle',
        'chat.replying.resetting --worker.error--> chat.idle',
        'chat.replying.resetting --after replyStall--> chat.unavailable',
      ].sort(),
    );
  });

  it('any machine: parallel regions, final states, always, numeric delays, state onDone, custom ids', () => {
    const machine = setup({ actors: { poll: fromPromise(async () => 1) } }).createMachine({
      id: 'm',
      type: 'parallel',
      states: {
        a: {
          initial: 'one',
          states: {
            one: { after: { 2000: 'two' } },
            two: { always: { target: 'done', guard: () => true } },
            done: { type: 'final' },
          },
          onDone: '#custom',
        },
        b: {
          initial: 'x',
          states: {
            x: { invoke: { src: 'poll', onDone: 'y' } },
            y: { id: 'custom', on: { go: ['#m.a.one', 'x'] } },
          },
        },
      },
    });
    const model = buildDiagramModel(machine);
    expect(states(model)).toEqual([
      'm:parallel',
      'm.a:compound',
      'm.a.one:atomic*',
      'm.a.two:atomic',
      'm.a.done:final',
      'm.b:compound',
      'm.b.x:atomic*',
      'custom:atomic',
    ]);
    expect(transitions(model)).toEqual(
      [
        'm.a.one --after 2000ms--> m.a.two',
        'm.a.two --always [guard]--> m.a.done',
        'm.a --done--> custom',
        'm.b.x --done: poll--> custom',
        // A multi-target transition (one target per region) is one edge per target.
        'custom --go--> m.a.one',
        'custom --go--> m.b.x',
      ].sort(),
    );
    expect(activeNodeIds(model, { a: 'two', b: 'y' })).toEqual(
      new Set(['m', 'm.a', 'm.a.two', 'm.b', 'custom']),
    );
  });

  it('a machine without states is one node', () => {
    const model = buildDiagramModel(createMachine({ id: 'lone', on: { ping: {} } }));
    expect(states(model)).toEqual(['lone:atomic']);
    expect(transitions(model)).toEqual(['lone --ping--> (self)']);
  });
});
