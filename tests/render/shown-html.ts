/** Whitespace between block elements is insignificant. */
export const normalize = (markup: string) => markup.trim().replace(/>\s*</g, '><');

/** A streaming renderer's blocks as comparable HTML, block wrappers left out. */
export function blocksHtml(el: HTMLElement): string {
  return normalize(
    [...el.querySelectorAll('.md-block')]
      .map((b) => b.innerHTML.trim())
      .filter(Boolean)
      .join('\n'),
  );
}

/**
 * {@link blocksHtml}, the list item being written shown without its layout wrapper (LiveItem in
 * src/ui/markdown/open-list.ts): what a whole render of the text so far shows.
 */
export function shownHtml(el: HTMLElement): string {
  const copy = el.cloneNode(true) as HTMLElement;
  for (const box of copy.querySelectorAll('.md-live')) {
    box.parentElement?.removeAttribute('style');
    box.replaceWith(...box.childNodes);
  }
  return blocksHtml(copy);
}
