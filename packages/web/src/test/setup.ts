import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Lazy pages are transformed on their first import, which can take over a second when several
// test files start at once; findBy* and waitFor wait long enough for that.
configure({ asyncUtilTimeout: 5000 });

// Testing Library cleans up automatically only with global test hooks; these tests import them.
afterEach(() => {
  cleanup();
  localStorage.clear();
});

// jsdom lacks the layout APIs Mantine calls; inert stand-ins are enough for rendering.
window.matchMedia ??= (query: string) =>
  ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }) as MediaQueryList;

class InertResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver ??= InertResizeObserver;
Element.prototype.scrollIntoView ??= () => undefined;

// CodeMirror measures text ranges (scrolling a line into view); jsdom has no layout for them.
const noRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
Range.prototype.getClientRects ??= noRects;
Range.prototype.getBoundingClientRect ??= () => new DOMRect();

// jsdom loads no fonts; Mantine's autosizing Textarea listens for fonts to finish loading.
if (!('fonts' in document)) {
  const fonts = Object.assign(new EventTarget(), { ready: Promise.resolve() });
  Object.defineProperty(document, 'fonts', { value: fonts, configurable: true });
}
