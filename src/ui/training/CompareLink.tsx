import { compareHash } from '../compare/compare-route';

/** "Compare with base": opens Compare for a finished run (its held-out questions, base vs trained). */
export function CompareLink({ runId, name }: { runId: string; name?: string | undefined }) {
  return (
    <a
      className="compare-link"
      href={compareHash(runId)}
      aria-label={name ? `Compare with base: ${name}` : undefined}
    >
      Compare with base
    </a>
  );
}
