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

type Mode = 'light' | 'dark';

/**
 * Every colour text is drawn in, per mode, at 4.5:1 or more on what it stands on (WCAG 1.4.3, axe
 * color-contrast; frontend/e2e/accessibility.e2e-spec.ts checks each screen, theme.spec.ts each
 * pair). antd's defaults miss it: its status colours (#52c41a, #ff4d4f...) are 2-3:1 on white, a
 * tag's text (palette step 7) 3-4:1 on its tint, the brand violet 3.4:1 on the dark page.
 */
export const TEXT_COLORS = {
  light: {
    link: BRAND_COLOR, // 5.3:1 on #f6f5fb
    success: '#237804', // green-8
    warning: '#874d00', // gold-9
    error: '#cf1322', // red-7
    info: '#0958d9', // blue-7
  },
  dark: {
    link: '#a78bfa', // 7:1 on #0f0c1f
    success: '#6abe39',
    warning: '#e8b339',
    error: '#f37370',
    info: '#3c89e8',
  },
} as const;

/**
 * A tag's text colour (antd draws it in palette step 7 on step 1): the first step from 7 on with
 * 4.5:1 on the tag's tint and on the card under it, from antd's light and dark palettes.
 */
export const TAG_TEXT: Record<Mode, Record<string, string>> = {
  light: {
    red7: '#cf1322',
    volcano7: '#ad2102',
    orange7: '#ad4e00',
    gold7: '#874d00',
    yellow7: '#876800',
    lime7: '#3f6600',
    green7: '#237804',
    cyan7: '#006d75',
    blue7: '#0958d9',
    geekblue7: '#1d39c4',
    purple7: '#531dab',
    magenta7: '#c41d7f',
  },
  dark: {
    red7: '#f37370',
    volcano7: '#e87040',
    orange7: '#e89a3c',
    gold7: '#e8b339',
    yellow7: '#e8d639',
    lime7: '#a9d134',
    green7: '#6abe39',
    cyan7: '#33bcb7',
    blue7: '#3c89e8',
    geekblue7: '#7f9ef3',
    purple7: '#ab7ae0',
    magenta7: '#f37fb7',
  },
};

/** The theme's colour tokens for a mode: links, status texts, tags, danger buttons, empty lists. */
export function accessibleColors(mode: Mode): Pick<ThemeConfig, 'token' | 'components'> {
  const text = TEXT_COLORS[mode];
  const status = {
    colorSuccess: text.success,
    colorWarning: text.warning,
    colorError: text.error,
    colorInfo: text.info,
  };
  // antd greys out "No data" (colorTextDisabled, 0.25 alpha: 1.9:1); it is content, not a disabled control.
  const emptyText = { colorTextDisabled: SECONDARY_TEXT[mode] };
  return {
    token: {
      colorLink: text.link,
      colorTextDescription: SECONDARY_TEXT[mode],
      colorSuccessText: text.success,
      colorWarningText: text.warning,
      colorErrorText: text.error,
      colorErrorTextHover: text.error,
      colorErrorTextActive: text.error,
    },
    components: {
      // Status tags (success, error...) write in the status colour, preset tags in step 7.
      Tag: { ...status, ...TAG_TEXT[mode] },
      // A danger button's text and outline; on the dark page's light red a filled one writes dark.
      Button:
        mode === 'light' ? { colorError: text.error } : { colorError: text.error, dangerColor: '#141414' },
      // A form's error message.
      Form: { colorError: text.error },
      List: emptyText,
      Table: emptyText,
    },
  };
}

const light = accessibleColors('light');

export const appTheme: ThemeConfig = {
  token: {
    colorPrimary: BRAND_COLOR,
    borderRadius: 8,
    fontSize: 15,
    ...light.token,
  },
  components: {
    ...light.components,
    Layout: {
      headerBg: HEADER_BG,
      headerHeight: HEADER_HEIGHT,
      headerPadding: '0 24px',
      bodyBg: '#f6f5fb',
      footerBg: 'transparent',
    },
  },
};
