/**
 * `npm run machines:diagram`: draws every machine exported from src/machines/*Machine.ts as an
 * SVG statechart in docs/ (`docs/machine-<id>.svg`), laid out by ELK from the machine
 * definitions, the same drawing as the in-app inspector's.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { buildDiagramModel } from '../src/inspection/diagram-model';
import { layoutDiagram } from '../src/inspection/layout';
import { diagramScene, sceneToString } from '../src/inspection/svg-scene';

const ROOT = resolve(import.meta.dirname, '..');
const MACHINES = join(ROOT, 'src', 'machines');
const DOCS = join(ROOT, 'docs');

function isMachine(value: unknown): value is AnyStateMachine {
  return (
    typeof value === 'object' &&
    value !== null &&
    'root' in value &&
    'config' in value &&
    'transition' in value
  );
}

/** The machines defined in src/machines/*Machine.ts, with their files. */
async function machines(): Promise<{ file: string; machine: AnyStateMachine }[]> {
  const files = readdirSync(MACHINES)
    .filter((f) => /Machine\.ts$/.test(f))
    .sort();
  const found: { file: string; machine: AnyStateMachine }[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(MACHINES, file)).href)) as Record<
      string,
      unknown
    >;
    for (const machine of Object.values(module).filter(isMachine)) found.push({ file, machine });
  }
  return found;
}

/**
 * Each machine's id and the fingerprint of what its drawing shows (states, transitions, guards,
 * invoked actors): a drawing records the fingerprint it was drawn from, so a test can tell a
 * stale drawing without laying one out.
 */
export async function machineFingerprints(): Promise<{ id: string; fingerprint: string }[]> {
  return (await machines()).map(({ machine }) => ({
    id: machine.id,
    fingerprint: fingerprintOf(machine),
  }));
}

function fingerprintOf(machine: AnyStateMachine): string {
  const model = JSON.stringify(buildDiagramModel(machine));
  return createHash('sha256').update(model).digest('hex').slice(0, 16);
}

/** The line a drawing ends with, naming the fingerprint of the machine it shows. */
export const fingerprintLine = (fingerprint: string) =>
  `<!-- drawn from the machine with fingerprint ${fingerprint} by npm run machines:diagram -->`;

/** Where a machine's drawing is kept. */
export const diagramPath = (id: string) => join(DOCS, `machine-${id}.svg`);

async function main() {
  mkdirSync(DOCS, { recursive: true });
  const written: string[] = [];
  for (const { file, machine } of await machines()) {
    const layout = await layoutDiagram(buildDiagramModel(machine));
    const svg = sceneToString(
      diagramScene(layout, { title: `${machine.id} statechart (src/machines/${file})` }),
    );
    writeFileSync(diagramPath(machine.id), `${svg}\n${fingerprintLine(fingerprintOf(machine))}\n`);
    written.push(`docs/machine-${machine.id}.svg`);
    console.log(`${file} → docs/machine-${machine.id}.svg`);
  }
  console.log('\nREADME snippet:\n');
  for (const path of written) console.log(`![${path}](${path})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  await main();
