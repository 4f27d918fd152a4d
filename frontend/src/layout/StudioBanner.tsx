import { Alert } from 'antd';
import { useSyncExternalStore } from 'react';
import { studioAvailability } from '../api/availability';

/**
 * One calm line under the header while the studio is briefly unavailable (api/availability.ts),
 * gone by itself once it is back. The live region stays in the page, empty while all is well, so
 * screen readers announce the line when it appears (politely: it interrupts nothing). It takes
 * room in the sticky top bar rather than floating, so it covers no control.
 */
export function StudioBanner() {
  const message = useSyncExternalStore(studioAvailability.subscribe, studioAvailability.getSnapshot);
  return (
    <div
      className="studio-banner"
      role="status"
      aria-live="polite"
      aria-atomic="true"
      data-testid="studio-banner"
    >
      {message && <Alert type="warning" showIcon banner role="none" message={message} />}
    </div>
  );
}
