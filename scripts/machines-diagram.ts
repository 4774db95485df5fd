/**
 * `npm run machines:diagram`: draws every machine exported from src/machines/*Machine.ts as an
 * SVG statechart in docs/ (`docs/machine-<id>.svg`), laid out by ELK from the machine
 * definitions, the same drawing as the in-app inspector's.
 */
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

async function main() {
  mkdirSync(DOCS, { recursive: true });
  const files = readdirSync(MACHINES)
    .filter((f) => /Machine\.ts$/.test(f))
    .sort();
  const written: string[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(MACHINES, file)).href)) as Record<
      string,
      unknown
    >;
    for (const machine of Object.values(module).filter(isMachine)) {
      const layout = await layoutDiagram(buildDiagramModel(machine));
      const svg = sceneToString(
        diagramScene(layout, { title: `${machine.id} statechart (src/machines/${file})` }),
      );
      const out = join(DOCS, `machine-${machine.id}.svg`);
      writeFileSync(out, `${svg}\n`);
      written.push(`docs/machine-${machine.id}.svg`);
      console.log(`${file} → docs/machine-${machine.id}.svg`);
    }
  }
  console.log('\nREADME snippet:\n');
  for (const path of written) console.log(`![${path}](${path})`);
}

await main();
