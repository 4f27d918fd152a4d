import { SocketEvents, type HeldItem } from '@studio/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet } from '../../api/client';
import { useResync, useSocketEvent } from '../../realtime/useRealtime';

/**
 * The moderation queue (GET /api/moderation/held), read again whenever the server says it changed
 * (an output held, released or removed, by anyone) and whenever the socket (re)joins, so changes
 * made while it was away are not missed.
 */
export function useHeldItems() {
  const [items, setItems] = useState<HeldItem[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // Answers arrive in order of asking; a slower older one never overwrites a newer one.
  const asked = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++asked.current;
    const result = await apiGet<HeldItem[]>('/moderation/held');
    if (mine !== asked.current) return;
    setLoading(false);
    if (result.ok && Array.isArray(result.body?.content)) {
      setItems(result.body.content);
      setError(null);
    } else {
      setError('The queue could not be loaded. It will try again when it changes.');
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);
  useSocketEvent(SocketEvents.moderationQueueChanged, () => void reload());
  useResync(() => void reload());

  /** Takes a decided item off the list at once (the push that follows reloads it anyway). */
  const drop = useCallback((itemId: string) => {
    setItems((current) => current.filter((item) => item.itemId !== itemId));
  }, []);

  return { items, loading, error, reload, drop };
}
