import { ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { JobsProvider } from './jobs/JobsProvider';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { SessionProvider } from './session/SessionProvider';
import { ToastHost } from './ui/ToastHost';
import { ThemeAccountSync, ThemeModeProvider } from './ui/themeMode';

/** Theme (light or dark), toasts, session, socket and jobs: everything the routed screens rely on. */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ThemeModeProvider>
      {(theme) => (
        <ConfigProvider theme={theme}>
          <ToastHost>
            <SessionProvider>
              <ThemeAccountSync />
              <RealtimeProvider>
                <JobsProvider>{children}</JobsProvider>
              </RealtimeProvider>
            </SessionProvider>
          </ToastHost>
        </ConfigProvider>
      )}
    </ThemeModeProvider>
  );
}
