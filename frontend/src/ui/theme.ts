import type { ThemeConfig } from 'antd';

export const BRAND_COLOR = '#7c3aed';
export const HEADER_BG = '#15112b';
export const HEADER_HEIGHT = 64;
/** Space kept free around the Magic Brush canvas so it fits the window under the header. */
export const MASK_VIEWPORT_MARGIN = 32;
/** Toasts open just under the header, so the balance and account menu stay visible and clickable. */
export const TOAST_TOP = HEADER_HEIGHT + 12;
/** Toasts at the bottom stay above the floating Jobs button (40 px high, 24 px from the edge). */
export const TOAST_BOTTOM = 80;

/**
 * Secondary text (descriptions, hints, upload help) dark enough for a 4.5:1 contrast on the page's
 * background: antd's 0.45 black gives 3.3:1 on #f6f5fb (Lighthouse, WCAG AA).
 */
export const SECONDARY_TEXT = { light: 'rgba(0, 0, 0, 0.6)', dark: 'rgba(255, 255, 255, 0.6)' };

export const appTheme: ThemeConfig = {
  token: {
    colorPrimary: BRAND_COLOR,
    colorLink: BRAND_COLOR,
    borderRadius: 8,
    fontSize: 15,
    colorTextDescription: SECONDARY_TEXT.light,
  },
  components: {
    Layout: {
      headerBg: HEADER_BG,
      headerHeight: HEADER_HEIGHT,
      headerPadding: '0 24px',
      bodyBg: '#f6f5fb',
      footerBg: 'transparent',
    },
  },
};
