import {
  SocketEvents,
  type ContentItem,
  type FolderContents,
  type SocketEventPayloads,
} from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText } from '../../api/client';
import { useSocketEvent } from '../../realtime/useRealtime';

export type FolderContentsState =
  | { status: 'loading' }
  | { status: 'ready'; contents: FolderContents }
  | { status: 'failed'; text: string; notFound: boolean };

/**
 * An admin's takedown pushed to the owner, applied to the folder's items as the server would list
 * them after a reload: the item flagged hidden, with the reason. Items of other folders are left
 * as they are (the same list is returned).
 */
export function applyTakedown(
  items: ContentItem[],
  takedown: SocketEventPayloads['content.taken_down'],
  at: Date = new Date(),
): ContentItem[] {
  if (!items.some((item) => item._id === takedown.itemId)) return items;
  return items.map((item) =>
    item._id === takedown.itemId
      ? {
          ...item,
          visible: false,
          takedown: { reason: takedown.reason, mode: takedown.mode, at: at.toISOString() },
        }
      : item,
  );
}

/**
 * Loads GET /api/getBulkInpaints/{id}; `setItems` changes the list at once (a deletion). Takedowns
 * the server pushes ('content.taken_down') apply live, without a reload.
 */
export function useFolderContents(folderId: string | undefined) {
  const [state, setState] = useState<FolderContentsState>({ status: 'loading' });

  useEffect(() => {
    if (!folderId) return;
    let current = true;
    void apiGet<FolderContents>(`/getBulkInpaints/${encodeURIComponent(folderId)}`).then((result) => {
      if (!current) return;
      if (result.ok && result.body) setState({ status: 'ready', contents: result.body.content });
      else setState({ status: 'failed', text: errorText(result), notFound: result.status === 404 });
    });
    return () => {
      current = false;
    };
  }, [folderId]);

  const setItems = useCallback(
    (update: (items: FolderContents['inpaints']) => FolderContents['inpaints']) => {
      setState((s) => {
        if (s.status !== 'ready') return s;
        const inpaints = update(s.contents.inpaints);
        return inpaints === s.contents.inpaints ? s : { ...s, contents: { ...s.contents, inpaints } };
      });
    },
    [],
  );

  useSocketEvent(SocketEvents.contentTakenDown, (takedown) =>
    setItems((items) => applyTakedown(items, takedown)),
  );

  return { state, setItems };
}
