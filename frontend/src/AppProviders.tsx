import { App, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { JobsProvider } from './jobs/JobsProvider';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { SessionProvider } from './session/SessionProvider';
import { TOAST_BOTTOM, TOAST_TOP } from './ui/theme';
import { toastContainer } from './ui/toast';
import { ThemeAccountSync, ThemeModeProvider } from './ui/themeMode';

/** Theme (light or dark), toasts, session, socket and jobs: everything the routed screens rely on. */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ThemeModeProvider>
      {(theme) => (
        <ConfigProvider theme={theme}>
          <App
            notification={{
              top: TOAST_TOP,
              bottom: TOAST_BOTTOM,
              getContainer: toastContainer,
              stack: false,
            }}
          >
            <SessionProvider>
              <ThemeAccountSync />
              <RealtimeProvider>
                <JobsProvider>{children}</JobsProvider>
              </RealtimeProvider>
            </SessionProvider>
          </App>
        </ConfigProvider>
      )}
    </ThemeModeProvider>
  );
}
