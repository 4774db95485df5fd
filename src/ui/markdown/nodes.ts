import type { Token, TokensList } from 'marked';
import { renderTokens, sanitizeToFragment } from './markdown';
import { typeset } from './math';

/** Renders tokens to sanitized, typeset nodes (typeset later in `root` if KaTeX is not loaded). */
export function nodes(
  tokens: Token[],
  links: TokensList['links'],
  root: () => ParentNode | null,
): DocumentFragment {
  const fragment = sanitizeToFragment(renderTokens(tokens, links));
  if (!typeset(fragment)) {
    const later = root();
    if (later) typeset(later);
  }
  return fragment;
}
