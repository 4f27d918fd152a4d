// Browser APIs that jsdom lacks but antd and react-router use.
import { TextDecoder, TextEncoder } from 'node:util';

Object.assign(globalThis, { TextEncoder, TextDecoder });

Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string): MediaQueryList => ({
    // A desktop-wide window for the job tray's docking (jobs/trayDock.ts); other queries unmatched.
    matches: query === '(min-width: 1280px)',
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});

// antd writes its CSS-in-JS into <head>, and jsdom re-matches every rule on each
// getComputedStyle call, which made role queries (visibility and accessible-name checks)
// take seconds. The tests check behaviour, not styling, so only inline styles count here.
Object.defineProperty(window, 'getComputedStyle', {
  writable: true,
  value: (element: Element): CSSStyleDeclaration => (element as HTMLElement).style,
});
