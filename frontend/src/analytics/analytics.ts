import type { AnalyticsEvents } from '@studio/contracts';

export type AnalyticsEvent = (typeof AnalyticsEvents)[keyof typeof AnalyticsEvents];

/** Port for product analytics; the local adapter writes to the console. */
export interface Analytics {
  track(event: AnalyticsEvent, properties: { price: number }): void;
}

export const consoleAnalytics: Analytics = {
  track(event, properties) {
    console.info(`[analytics] ${event}`, properties);
  },
};

/** The adapter in use; a hosted analytics service would be plugged in here. */
export const analytics: Analytics = consoleAnalytics;
