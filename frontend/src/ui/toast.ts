import { TOAST_DURATION_MS } from '@studio/contracts';
import { App } from 'antd';
import { useMemo } from 'react';

export interface Toast {
  /**
   * `key` names the outcome a toast tells of (a job, say): a later toast with the same key takes
   * its place, so one job never shows "in progress" beside its failure.
   */
  success(text: string, description?: string, key?: string): void;
  info(text: string, description?: string, key?: string): void;
  warning(text: string, description?: string, key?: string): void;
  error(text: string, description?: string, key?: string): void;
}

/** Phones: the toast spans the width, so it goes to the bottom, above the floating Jobs button. */
export const PHONE_QUERY = '(max-width: 575px)';

/**
 * Where a toast hides no control: the header (balance, account menu), the tool tabs and the price
 * badge are at the top, and the job tray at the bottom right. So: bottom left on wider screens,
 * bottom centre above the Jobs button on phones (AppProviders sets the distance, TOAST_BOTTOM).
 */
export function toastPlacement(): 'bottomLeft' | 'bottom' {
  return typeof window !== 'undefined' && window.matchMedia?.(PHONE_QUERY).matches ? 'bottom' : 'bottomLeft';
}

/**
 * The only way screens show toasts, closing after TOAST_DURATION_MS (spec section 2). Goes through
 * antd's App context so toasts follow the theme.
 */
export function useToast(): Toast {
  const { notification } = App.useApp();
  return useMemo(() => {
    const show = (kind: keyof Toast) => (text: string, description?: string, key?: string) =>
      notification[kind]({
        key,
        message: text,
        description,
        placement: toastPlacement(),
        duration: TOAST_DURATION_MS / 1000,
      });
    return { success: show('success'), info: show('info'), warning: show('warning'), error: show('error') };
  }, [notification]);
}
