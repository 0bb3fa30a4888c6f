import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

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
