/**
 * jsdom's selector engine (@asamuzakjp/dom-selector) adds nine capturing listeners to the window
 * for every Document it creates, and never removes them. DOMPurify parses each string it sanitizes
 * into a new Document, so a test file that renders markdown thousands of times piles up tens of
 * thousands of listeners on the one window, and jsdom's addEventListener looks through all of them
 * for a duplicate on every add: each render gets slower than the one before.
 *
 * The listeners of the test page's own Document were added before this setup file runs and stay.
 * Those added later belong to Documents other than the page (parsed, never shown): they track focus,
 * keys and the mouse on the page's window for their own Document's `:focus-visible`-like
 * selectors, which no test matches in such a Document, so they are not added at all.
 */
const SELECTOR_ENGINE_HANDLERS = new Set([
  '_handleFocusEvent',
  '_handleKeyboardEvent',
  '_handleMouseEvent',
]);

// vitest's jsdom environment copies the window's members onto globalThis and keeps the JSDOM
// instance as `jsdom`: the selector engine adds its listeners to that instance's own window.
const win = (globalThis as { jsdom?: { window: Window } }).jsdom?.window;
if (win) {
  const add = win.addEventListener.bind(win);
  win.addEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ) => {
    if (typeof listener === 'function' && SELECTOR_ENGINE_HANDLERS.has(listener.name)) return;
    add(type, listener, options);
  };
}
