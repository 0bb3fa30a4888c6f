import { vi } from 'vitest';

/**
 * noVNC's RFB, at its module boundary, for the desktop session page's tests: it records what
 * the page asks of it, and the tests drive it with the events noVNC would fire. Tests mock
 * `@novnc/novnc` with it (`vi.mock('@novnc/novnc', () => import('./fakeRfb'))`).
 */
export class FakeRfb extends EventTarget {
  scaleViewport = false;
  resizeSession = false;
  readonly sendCtrlAltDel = vi.fn();
  readonly disconnect = vi.fn();
  readonly clipboardPasteFrom = vi.fn();
  readonly focus = vi.fn();
  constructor(
    readonly target: HTMLElement,
    readonly channel: unknown,
    readonly options: unknown,
  ) {
    super();
    rfbInstances.push(this);
  }
  emit(type: string, detail: unknown = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** Every RFB the page made since the test began, oldest first. */
export const rfbInstances: FakeRfb[] = [];

export default FakeRfb;
