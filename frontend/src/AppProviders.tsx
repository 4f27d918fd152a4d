import { App, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { JobsProvider } from './jobs/JobsProvider';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { SessionProvider } from './session/SessionProvider';
import { appTheme, TOAST_TOP } from './ui/theme';

/** Theme, toasts, session, socket and jobs: everything the routed screens rely on. */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ConfigProvider theme={appTheme}>
      <App notification={{ top: TOAST_TOP }}>
        <SessionProvider>
          <RealtimeProvider>
            <JobsProvider>{children}</JobsProvider>
          </RealtimeProvider>
        </SessionProvider>
      </App>
    </ConfigProvider>
  );
}
