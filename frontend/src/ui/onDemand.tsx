import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';

const loaders: (() => Promise<unknown>)[] = [];

/**
 * A component whose code downloads the first time it is wanted, not with the page: dialogs, menus
 * and panels that open on a click stay out of the first load (npm run bundle-report). Until its
 * code is in, `fallback` shows (nothing by default); once in, it renders at once wherever it is
 * mounted next (as the lazy pages of routes.tsx do).
 */
export function onDemand<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | undefined;
  const fetchCode = async () => (loaded ??= await load());
  loaders.push(fetchCode);
  const Lazy = lazy(async () => ({ default: await fetchCode() })) as unknown as ComponentType<P>;
  return function OnDemand(props: P & { fallback?: ReactNode }) {
    const { fallback = null, ...rest } = props;
    // Decided once per mount, so a later re-render never swaps the element type (and its state).
    const [Loaded] = useState(() => loaded);
    if (Loaded) return <Loaded {...(rest as P)} />;
    return (
      <Suspense fallback={fallback}>
        <Lazy {...(rest as P)} />
      </Suspense>
    );
  };
}

/** Loads every on-demand component (unit tests render synchronously after this). */
export async function preloadOnDemand(): Promise<void> {
  await Promise.all(loaders.map((load) => load()));
}

/** True from the first render where `wanted` was true: keeps a dialog mounted for its closing. */
export function useWantedOnce(wanted: boolean): boolean {
  const [once, setOnce] = useState(wanted);
  if (wanted && !once) setOnce(true);
  return once || wanted;
}
