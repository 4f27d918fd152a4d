import { notification, theme } from 'antd';
import type { ReactNode } from 'react';
import { TOAST_BOTTOM, TOAST_TOP } from './theme';
import { NotificationContext, toastContainer } from './toast';

/**
 * Holds the toasts (antd notification, under the theme so they follow it) and gives the page antd's
 * base text style, as antd's App did. App also holds a dialog and a message API the screens never
 * use: its Modal (with Skeleton and rc-dialog) and message code stayed out of the first load.
 */
export function ToastHost({ children }: { children: ReactNode }) {
  const { token } = theme.useToken();
  const [api, holder] = notification.useNotification({
    top: TOAST_TOP,
    bottom: TOAST_BOTTOM,
    getContainer: toastContainer,
    stack: false,
  });
  return (
    <NotificationContext.Provider value={api}>
      <div
        className="app-root"
        style={{
          color: token.colorText,
          fontSize: token.fontSize,
          lineHeight: token.lineHeight,
          fontFamily: token.fontFamily,
        }}
      >
        {holder}
        {children}
      </div>
    </NotificationContext.Provider>
  );
}
