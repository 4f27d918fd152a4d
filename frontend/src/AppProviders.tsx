import { App, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { SessionProvider } from './session/SessionProvider';
import { appTheme } from './ui/theme';

/** Theme, toasts, session and socket: everything the routed screens rely on. */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ConfigProvider theme={appTheme}>
      <App>
        <SessionProvider>
          <RealtimeProvider>{children}</RealtimeProvider>
        </SessionProvider>
      </App>
    </ConfigProvider>
  );
}
