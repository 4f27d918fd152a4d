import { useEffect, useState } from 'react';
import type { BillingStatus } from '@studio/contracts';
import { apiGet } from '../../api/client';

const UNKNOWN: BillingStatus = { paymentsConfigured: false, testMode: false, welcomeAllowance: 0 };

/** What this server offers for coins: card payments, test mode, the free allowance (null while asking). */
export function useBillingStatus(): BillingStatus | null {
  const [status, setStatus] = useState<BillingStatus | null>(null);
  useEffect(() => {
    let live = true;
    void apiGet<BillingStatus>('/billing/status').then((result) => {
      if (live) setStatus({ ...UNKNOWN, ...(result.body?.content ?? {}) });
    });
    return () => {
      live = false;
    };
  }, []);
  return status;
}

/** Whether the server can take card payments (null while asking). */
export function usePaymentsConfigured(): boolean | null {
  const status = useBillingStatus();
  return status === null ? null : status.paymentsConfigured;
}
