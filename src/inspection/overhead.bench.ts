/**
 * Per-token cost of inspection: 4,000 `worker.message` (update) events through appMachine, with
 * no inspect option, with the bus passed but nobody subscribed (panel closed), and with the
 * panel's store subscribed (panel open, React rendering excluded: it runs once per frame).
 *   npx tsx src/inspection/overhead.bench.ts   (`--smoke`: 200 tokens, one round, for CI)
 */
import { createActor, fromCallback, fromPromise, waitFor, type InspectionEvent } from 'xstate';
import { appMachine, type GpuInfo } from '../machines/appMachine';
import { inspect, register } from './bus';
import { createInspectorStore } from './store';

const SMOKE = process.argv.includes('--smoke');
const TOKENS = SMOKE ? 200 : 4000;
const RUNS = SMOKE ? 1 : 9;

const logic = appMachine.provide({
  actors: {
    probeWebGPU: fromPromise<GpuInfo>(() => Promise.resolve({ supported: true, shaderF16: false })),
    llmWorker: fromCallback(() => () => {}),
  },
});

interface Mode {
  inspect?: (e: InspectionEvent) => void;
  register?: boolean;
}

async function run({ register: viaRegister, ...options }: Mode): Promise<number> {
  const app = createActor(logic, { input: { models: [] }, ...options }).start();
  const forget = viaRegister ? register(app) : () => {};
  await waitFor(app, (s) => s.matches('supported'));
  const chat = app.getSnapshot().context.chat;
  const send = (message: object) => app.send({ type: 'worker.message', message } as never);
  send({ status: 'ready' });
  chat?.send({ type: 'chat.send', text: 'hi' });
  send({ status: 'start' });
  const t0 = performance.now();
  for (let i = 0; i < TOKENS; i += 1)
    send({ status: 'update', output: 'x', numTokens: i + 1, channel: 'answer', tps: 10 });
  const ms = performance.now() - t0;
  if (!chat?.getSnapshot().matches({ replying: 'generating' }))
    throw new Error('chat not generating');
  forget();
  app.stop();
  return ms;
}

interface Case {
  label: string;
  mode: Mode;
  panelOpen: boolean;
}

const cases: Case[] = [
  { label: 'no inspect option', mode: {}, panelOpen: false },
  { label: 'inspect option, panel closed', mode: { inspect }, panelOpen: false },
  { label: 'register(), panel closed', mode: { register: true }, panelOpen: false },
  { label: 'inspect option, panel open (store)', mode: { inspect }, panelOpen: true },
  { label: 'register(), panel open (store)', mode: { register: true }, panelOpen: true },
];

// Rounds interleave the cases and the best run of each counts: the machine is shared, so the
// minimum is the figure least disturbed by other processes.
const best = new Map<string, number>();
const store = createInspectorStore({ schedule: (flush) => setTimeout(flush, 16) });
await run({}); // warm-up
for (let round = 0; round < RUNS; round += 1) {
  for (const c of cases) {
    const unsubscribe = c.panelOpen ? store.subscribe(() => {}) : () => {};
    const ms = await run(c.mode);
    unsubscribe();
    best.set(c.label, Math.min(best.get(c.label) ?? Infinity, ms));
  }
}
const base = best.get('no inspect option') ?? 0;
for (const c of cases) {
  const ms = best.get(c.label) ?? 0;
  const extra = ((ms - base) * 1000) / TOKENS;
  console.log(
    `${c.label.padEnd(36)} ${ms.toFixed(1).padStart(6)} ms / ${TOKENS} tokens = ` +
      `${((ms * 1000) / TOKENS).toFixed(2).padStart(5)} µs/token (${extra >= 0 ? '+' : ''}${extra.toFixed(2)})`,
  );
}
console.log(`log rows kept: ${store.getLog().length} of ${store.getEventCount()} events`);
