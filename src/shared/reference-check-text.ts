/**
 * What the page says for a "Checked on this GPU" outcome (src/shared/reference-check.ts): one
 * headline and a line of detail, and a tone. Kept apart from the rule so that only the status
 * line's own chunk carries the wording.
 */
import type { ReferenceCheck, ReplayToken } from './reference-check';

/** How a check reads in the page: its tone, one headline and a line of detail. */
export interface ReferenceCheckText {
  /** ok: agreed; warning: diverged (visible, not an error: the model stays usable); neutral. */
  tone: 'ok' | 'warning' | 'neutral';
  headline: string;
  detail: string | null;
}

/** A token as the message names it: `512 “ the”` (the text escaped like JSON, so `\n` shows). */
function named(token: ReplayToken): string {
  if (token.text === undefined || token.text === '') return String(token.id);
  return `${token.id} “${JSON.stringify(token.text).slice(1, -1)}”`;
}

/** A logit lead as the message writes it: two decimals, or two significant digits below 0.1. */
export function formatLead(lead: number): string {
  return Math.abs(lead) >= 0.1 ? lead.toFixed(2) : lead.toPrecision(2);
}

/** What the page says for a check (the status line beside the model). */
export function referenceCheckText(check: ReferenceCheck): ReferenceCheckText {
  switch (check.result) {
    case 'agreed': {
      const tokens = `${check.dtype} · ${check.steps} tokens replayed, ${check.compared} with a clear lead compared`;
      if (!check.split)
        return {
          tone: 'ok',
          headline: "Checked on this GPU: the same answer as the trainer's",
          detail: tokens,
        };
      return {
        tone: 'ok',
        headline: `Checked on this GPU: the same answer as the trainer's up to step ${check.split.step}, a near-tie where either token is right`,
        detail: `${check.dtype} · ${check.compared} steps with a clear lead compared; from step ${check.split.step} on (token ${named(check.split.got)} instead of ${named(check.split.expected)}, whose lead was only ${formatLead(check.split.lead)}) the answers part and were not compared`,
      };
    }
    case 'diverged': {
      const { step, expected, got, lead } = check.divergence;
      const advice = check.alternative
        ? `try the other variant (${check.alternative} instead of ${check.dtype}).`
        : `no other variant of it runs on this GPU.`;
      return {
        tone: 'warning',
        headline: `Checked on this GPU: step ${step} differs from the trainer's answer (token ${named(got)} instead of ${named(expected)}, whose lead was ${formatLead(lead)}). The model stays usable; if its answers look wrong, ${advice}`,
        detail: `${check.dtype} · ${check.steps} tokens replayed`,
      };
    }
    case 'inconclusive':
      return {
        tone: 'neutral',
        headline: check.split
          ? `Checked on this GPU: inconclusive — step ${check.split.step} was a near-tie in the trainer's run and went the other way here before any step with a clear lead, so no token was compared`
          : `Checked on this GPU: inconclusive — none of the ${check.steps} steps replayed had a clear lead in the trainer's run, so no token was compared`,
        detail: check.dtype,
      };
    case 'unavailable':
      return {
        tone: 'neutral',
        headline: `Not checked on this GPU: ${check.reason}`,
        detail: null,
      };
  }
}
