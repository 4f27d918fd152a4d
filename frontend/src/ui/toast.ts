import { TOAST_DURATION_MS } from '@studio/contracts';
import { App } from 'antd';
import { useMemo } from 'react';

export interface Toast {
  success(text: string, description?: string): void;
  info(text: string, description?: string): void;
  warning(text: string, description?: string): void;
  error(text: string, description?: string): void;
}

/**
 * The only way screens show toasts: top-right, closing after TOAST_DURATION_MS (spec section 2).
 * Goes through antd's App context so toasts follow the theme.
 */
export function useToast(): Toast {
  const { notification } = App.useApp();
  return useMemo(() => {
    const show = (kind: keyof Toast) => (text: string, description?: string) =>
      notification[kind]({
        message: text,
        description,
        placement: 'topRight',
        duration: TOAST_DURATION_MS / 1000,
      });
    return { success: show('success'), info: show('info'), warning: show('warning'), error: show('error') };
  }, [notification]);
}
