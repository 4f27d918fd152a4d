import {
  ContentMessages,
  SocketEvents,
  type ContentItem,
  type FolderChange,
  type FolderContents,
  type SocketEventPayloads,
} from '@studio/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet, errorText } from '../../api/client';
import { useResync, useSocketEvent } from '../../realtime/useRealtime';

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

/** Newest first, as the server lists them. */
const newestFirst = (a: ContentItem, b: ContentItem) =>
  b.createdAt.localeCompare(a.createdAt) || b._id.localeCompare(a._id);

/**
 * A pushed change of this folder applied to its contents, as a reload would show them. Applying
 * one twice changes nothing (an item already listed is not added again).
 */
export function applyFolderChange(contents: FolderContents, change: FolderChange): FolderContents {
  let { inpaint, inpaints } = contents;
  const title = change.folder?.title ?? contents.title;
  const known = new Set(inpaints.map((item) => item._id));
  const fresh = (change.added ?? []).filter((item) => !known.has(item._id));
  if (fresh.length) inpaints = [...fresh, ...inpaints].sort(newestFirst);
  if (change.removed?.length) {
    const gone = new Set(change.removed);
    inpaints = inpaints.filter((item) => !gone.has(item._id));
  }
  const batch = change.batch;
  if (batch) {
    inpaint = inpaint.some((entry) => entry._id === batch._id)
      ? inpaint.map((entry) => (entry._id === batch._id ? batch : entry))
      : [batch, ...inpaint];
  }
  return { ...contents, title, inpaint, inpaints };
}

/**
 * Loads GET /api/getBulkInpaints/{id} and keeps it live: the server's pushes for this folder
 * ('folder.changed': items added or removed, batch status; 'content.taken_down') apply without a
 * reload, and the folder is read again whenever the socket (re)joins, as pushes sent while it was
 * away are lost. `setItems` changes the list at once (a deletion).
 */
export function useFolderContents(folderId: string | undefined) {
  const [state, setState] = useState<FolderContentsState>({ status: 'loading' });
  const [version, setVersion] = useState(0);
  // Changes pushed while a read is on its way, applied again to its answer (it may predate them).
  const duringRead = useRef<FolderChange[] | null>(null);

  useEffect(() => {
    if (!folderId) return;
    let current = true;
    duringRead.current = [];
    void apiGet<FolderContents>(`/getBulkInpaints/${encodeURIComponent(folderId)}`).then((result) => {
      if (!current) return;
      const missed = duringRead.current ?? [];
      duringRead.current = null;
      if (result.ok && result.body) {
        setState({ status: 'ready', contents: missed.reduce(applyFolderChange, result.body.content) });
      } else {
        setState({ status: 'failed', text: errorText(result), notFound: result.status === 404 });
      }
    });
    return () => {
      current = false;
    };
  }, [folderId, version]);

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

  useResync(() => setVersion((v) => v + 1));
  useSocketEvent(SocketEvents.folderChanged, (change) => {
    if (change.folderId !== folderId) return;
    if (change.deleted) {
      setState({ status: 'failed', text: ContentMessages.folderNotFound, notFound: true });
      return;
    }
    duringRead.current?.push(change);
    setState((s) => (s.status === 'ready' ? { ...s, contents: applyFolderChange(s.contents, change) } : s));
  });
  useSocketEvent(SocketEvents.contentTakenDown, (takedown) =>
    setItems((items) => applyTakedown(items, takedown)),
  );

  return { state, setItems };
}
