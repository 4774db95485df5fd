/**
 * The statecharts in docs/ show the machines as they are: each drawing names the fingerprint of
 * the machine it was drawn from (states, transitions, guards, invoked actors), and that equals
 * the machine's fingerprint today (`npm run machines:diagram` redraws them).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagramPath, fingerprintLine, machineFingerprints } from '../../scripts/machines-diagram';

describe('docs/machine-*.svg', () => {
  it('each was drawn from its machine as it is today (else run npm run machines:diagram)', async () => {
    const machines = await machineFingerprints();
    expect(machines.map((m) => m.id)).toEqual(expect.arrayContaining(['chat', 'training']));
    for (const { id, fingerprint } of machines) {
      let drawing = '';
      try {
        drawing = readFileSync(diagramPath(id), 'utf8');
      } catch {
        // No drawing: fails below, naming the machine.
      }
      expect(
        drawing.includes(fingerprintLine(fingerprint)),
        `docs/machine-${id}.svg is out of date`,
      ).toBe(true);
    }
  });
});
