import { SocketEvents, type FolderChange, type FolderSummary } from '@studio/contracts';
import { useEffect, useState } from 'react';
import { useSocketEvent } from '../realtime/useRealtime';

/** A pushed folder change applied to the owner's folder list (oldest first, as the API lists). */
export function applyToFolderList(folders: FolderSummary[], change: FolderChange): FolderSummary[] {
  if (change.deleted) return folders.filter((f) => f._id !== change.folderId);
  const summary = change.folder;
  if (!summary) return folders;
  return folders.some((f) => f._id === summary._id)
    ? folders.map((f) => (f._id === summary._id ? summary : f))
    : [...folders, summary];
}

/**
 * The owner's folders as given, kept live: names and item counts follow the server's pushes, and
 * `reload` (a fresh read) runs whenever the socket (re)joins, as pushes sent meanwhile are lost.
 */
export function useLiveFolders(initial: FolderSummary[], reload: () => void) {
  const [folders, setFolders] = useState(initial);
  useEffect(() => setFolders(initial), [initial]);
  useSocketEvent(SocketEvents.folderChanged, (change) => setFolders((all) => applyToFolderList(all, change)));
  useSocketEvent(SocketEvents.ready, reload);
  return [folders, setFolders] as const;
}
