import { theme as antdTheme, type ThemeConfig } from 'antd';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { readAccount } from '../session/storage';
import { useSession } from '../session/useSession';
import { accessibleColors, appTheme } from './theme';

export type ThemeMode = 'light' | 'dark';

const DARK_QUERY = '(prefers-color-scheme: dark)';

/**
 * The chosen mode is kept in this browser per username ('studio.theme.<username>', or
 * 'studio.theme' while logged out): a choice is a display preference, not account data.
 * Without a choice the system setting decides.
 */
export function themeStorageKey(account: string | null): string {
  return account ? `studio.theme.${account}` : 'studio.theme';
}

function readChoice(account: string | null): ThemeMode | null {
  const stored = localStorage.getItem(themeStorageKey(account));
  return stored === 'light' || stored === 'dark' ? stored : null;
}

function useSystemMode(): ThemeMode {
  const query = useMemo(() => window.matchMedia(DARK_QUERY), []);
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const follow = (event: MediaQueryListEvent) => setDark(event.matches);
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, [query]);
  return dark ? 'dark' : 'light';
}

interface ThemeModeValue {
  mode: ThemeMode;
  /** Toggles and remembers the choice for the current account. */
  toggle(): void;
  /** Whose choice applies; the session tells it (see ThemeAccountSync). */
  followAccount(account: string | null): void;
}

const ThemeModeContext = createContext<ThemeModeValue>({
  mode: 'light',
  toggle: () => undefined,
  followAccount: () => undefined,
});

export const useThemeMode = () => useContext(ThemeModeContext);

/** antd's dark algorithm and the page's own colours (styles.css reads data-theme). */
export function themeFor(mode: ThemeMode): ThemeConfig {
  if (mode === 'light') return appTheme;
  const dark = accessibleColors('dark');
  return {
    ...appTheme,
    token: { ...appTheme.token, ...dark.token },
    algorithm: antdTheme.darkAlgorithm,
    components: {
      ...appTheme.components,
      ...dark.components,
      Layout: { ...appTheme.components?.Layout, bodyBg: '#0f0c1f' },
    },
  };
}

export function ThemeModeProvider({ children }: { children(theme: ThemeConfig): ReactNode }) {
  const system = useSystemMode();
  // Start from the remembered login so the first paint already has the person's choice.
  const [account, setAccount] = useState<string | null>(readAccount);
  const [choice, setChoice] = useState<ThemeMode | null>(() => readChoice(readAccount()));
  const mode = choice ?? system;

  const followAccount = useCallback((next: string | null) => {
    setAccount(next);
    setChoice(readChoice(next));
  }, []);

  const toggle = useCallback(() => {
    const next: ThemeMode = mode === 'dark' ? 'light' : 'dark';
    localStorage.setItem(themeStorageKey(account), next);
    setChoice(next);
  }, [account, mode]);

  useEffect(() => {
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.colorScheme = mode;
  }, [mode]);

  const value = useMemo(() => ({ mode, toggle, followAccount }), [mode, toggle, followAccount]);
  const config = useMemo(() => themeFor(mode), [mode]);
  return <ThemeModeContext.Provider value={value}>{children(config)}</ThemeModeContext.Provider>;
}

/** Tells the theme whose choice applies whenever the session's account changes. */
export function ThemeAccountSync() {
  const { account } = useSession();
  const { followAccount } = useThemeMode();
  useEffect(() => followAccount(account), [account, followAccount]);
  return null;
}
