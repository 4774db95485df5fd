/**
 * Copy buttons on code blocks, added after sanitizing: the sanitized HTML is left as it is (no new
 * tag is allowed in the sanitizer's configuration for model output); this step creates a real
 * <button> with createElement in each <pre> of a finished message. Clicks are handled by the
 * message's own listener (see `codeOfCopyButton`).
 */
const BUTTON_CLASS = 'code-copy';

/** Gives every <pre> under `root` its Copy button (once). */
export function addCodeCopyButtons(root: HTMLElement): void {
  for (const pre of root.querySelectorAll('pre')) {
    if (pre.querySelector(`:scope > button.${BUTTON_CLASS}`)) continue;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = BUTTON_CLASS;
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    pre.prepend(button);
  }
}

/**
 * Keeps the buttons there while the message is finished: the renderer may land the final text in
 * slices after frames, so every change of the tree is answered. Returns the stop function.
 */
export function watchCodeBlocks(root: HTMLElement): () => void {
  addCodeCopyButtons(root);
  const observer = new MutationObserver(() => addCodeCopyButtons(root));
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}

/** The code a click copies, when the click was on a code block's Copy button; else null. */
export function codeOfCopyButton(target: EventTarget | null): string | null {
  if (!(target instanceof HTMLElement) || !target.classList.contains(BUTTON_CLASS)) return null;
  const pre = target.parentElement;
  if (!pre) return null;
  const code = pre.querySelector('code');
  return (code ?? pre).textContent?.replace(code ? '' : 'Copy', '') ?? '';
}
