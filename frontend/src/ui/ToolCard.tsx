import type { ReactNode } from 'react';

/**
 * The white panel around a tool's form, drawn like antd's Card without importing it: Card brings
 * Tabs, Skeleton and a menu into the home page's first load (about 20 kB gzip) for a plain box.
 */
export function ToolCard({ children }: { children: ReactNode }) {
  return <section className="tool-card tool-card-plain">{children}</section>;
}
