/** Product-wide constants of the web client. */
export const PRODUCT_NAME = 'AI Studio';

/** The community chat opened by the "Join Telegram" menu entry. */
export const TELEGRAM_URL = 'https://t.me/';
