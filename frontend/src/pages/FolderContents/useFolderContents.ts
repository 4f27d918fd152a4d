import type { FolderContents } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText } from '../../api/client';

export type FolderContentsState =
  | { status: 'loading' }
  | { status: 'ready'; contents: FolderContents }
  | { status: 'failed'; text: string; notFound: boolean };

/** Loads GET /api/getBulkInpaints/{id}; `removeItem` drops an item from the list at once. */
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
      setState((s) =>
        s.status === 'ready'
          ? { ...s, contents: { ...s.contents, inpaints: update(s.contents.inpaints) } }
          : s,
      );
    },
    [],
  );

  return { state, setItems };
}
