import { useEffect, useState } from 'react';
import { apiGet } from '../../api/client';

/** Whether the server can take card payments (null while asking). */
export function usePaymentsConfigured(): boolean | null {
  const [configured, setConfigured] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    void apiGet<{ paymentsConfigured: boolean }>('/billing/status').then((result) => {
      if (live) setConfigured(result.body?.content.paymentsConfigured ?? false);
    });
    return () => {
      live = false;
    };
  }, []);
  return configured;
}
