import type { FolderChange, FolderSummary } from '@studio/contracts';

/** A folder change (pushed, or the answer of a rename or delete) applied to the owner's folder list. */
export function applyToFolderList(folders: FolderSummary[], change: FolderChange): FolderSummary[] {
  if (change.deleted) return folders.filter((f) => f._id !== change.folderId);
  const summary = change.folder;
  if (!summary) return folders;
  return folders.some((f) => f._id === summary._id)
    ? folders.map((f) => (f._id === summary._id ? summary : f))
    : [...folders, summary];
}
