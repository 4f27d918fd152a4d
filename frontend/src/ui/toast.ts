import { TOAST_DURATION_MS } from '@studio/contracts';
import type { notification } from 'antd';
import { createContext, useContext, useMemo } from 'react';
import { isOutageText } from '../api/availability';

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

/** Phones: a toast spans the width, so wherever it floats it lies over some control. */
export const PHONE_QUERY = '(max-width: 575px)';

/** The strip under the header (AppLayout) where toasts stand on phones. */
export const TOAST_DOCK_ID = 'toast-dock';

const onPhone = () => typeof window !== 'undefined' && !!window.matchMedia?.(PHONE_QUERY).matches;

/**
 * Where a toast hides no control. Wider screens: floating at the bottom left (the header, tool
 * tabs and price badge are at the top, the job tray at the bottom right). Phones: nowhere is free
 * to float over, so a toast takes room in the page instead (toastContainer), at the top.
 */
export function toastPlacement(): 'bottomLeft' | 'top' {
  return onPhone() ? 'top' : 'bottomLeft';
}

/**
 * Where antd renders the toasts (asked again on every render of its holder). On phones: in the
 * flow of what is on top, so a toast pushes the page down rather than lying over it: the open
 * dialog's body, or else the dock under the header (styles.css, `.toast-dock`). Elsewhere: the
 * document's body, floating.
 */
export function toastContainer(): HTMLElement {
  if (!onPhone()) return document.body;
  const dialogs = Array.from(document.querySelectorAll<HTMLElement>('.ant-modal-wrap')).filter(
    (wrap) => wrap.style.display !== 'none' && wrap.querySelector('.ant-modal-body'),
  );
  const dialog = dialogs.at(-1)?.querySelector<HTMLElement>('.ant-modal-body');
  return dialog ?? document.getElementById(TOAST_DOCK_ID) ?? document.body;
}

type NotificationApi = ReturnType<typeof notification.useNotification>[0];

/** The error toasts each holder shows now, by key: a success closes them (it resolves them). */
const openErrors = new WeakMap<NotificationApi, Set<string>>();
let nextErrorKey = 0;

/** antd's notification API of the one holder under the theme (ui/ToastHost.tsx). */
export const NotificationContext = createContext<NotificationApi | null>(null);

/**
 * The only way screens show toasts, closing after TOAST_DURATION_MS (spec section 2). Goes through
 * the holder under the theme (ToastHost) so toasts follow it. Outage errors are left to the banner.
 */
export function useToast(): Toast {
  const notification = useContext(NotificationContext);
  if (!notification) throw new Error('useToast needs a ToastHost above it');
  return useMemo(() => {
    const errors = openErrors.get(notification) ?? new Set<string>();
    openErrors.set(notification, errors);
    const show =
      (kind: keyof Toast) => (text: string, description?: string, key?: string, onClose?: () => void) =>
        notification[kind]({
          key,
          message: text,
          description,
          placement: toastPlacement(),
          duration: TOAST_DURATION_MS / 1000,
          onClose,
        });
    const success = show('success');
    const error = show('error');
    return {
      // A success resolves the errors still shown ("Wrong password" then "Logged in!"): they go,
      // rather than stand beside it saying the opposite.
      success: (text, description, key) => {
        for (const open of errors) notification.destroy(open);
        errors.clear();
        success(text, description, key);
      },
      info: show('info'),
      warning: show('warning'),
      // While the studio is briefly unavailable its one banner (StudioBanner) says so: a toast per
      // failed request would pile up the same words.
      error: (text, description, key) => {
        if (isOutageText(text)) return;
        const errorKey = key ?? `error-${(nextErrorKey += 1)}`;
        errors.add(errorKey);
        error(text, description, errorKey, () => errors.delete(errorKey));
      },
    };
  }, [notification]);
}
