import { SocketEvents, type FolderChange, type ProfileContent } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText } from '../../api/client';
import { applyToFolderList } from '../../folders/folderList';
import { useResync, useSocketEvent } from '../../realtime/useRealtime';
import { useSession } from '../../session/useSession';

export type ProfileState =
  | { status: 'loading' }
  | { status: 'ready'; profile: ProfileContent }
  | { status: 'notFound' }
  | { status: 'failed'; text: string };

/**
 * Loads GET /api/getProfile/{name}; the own profile also refreshes the header balance. The own
 * folders stay live: the server's folder pushes (names, counts, new and deleted folders) and
 * `changeFolders` (a rename's or delete's answer) apply to them, and the profile is read again
 * whenever the socket (re)joins, as pushes sent meanwhile are lost.
 */
export function useProfile(
  name: string | null,
): ProfileState & { reload(): void; changeFolders(change: FolderChange): void } {
  const { setBalance } = useSession();
  const [state, setState] = useState<ProfileState>({ status: 'loading' });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (!name) return;
    let current = true;
    // A reload keeps the current screen until the new answer arrives.
    if (version === 0) setState({ status: 'loading' });
    void apiGet<ProfileContent>(`/getProfile/${encodeURIComponent(name)}`).then((result) => {
      if (!current) return;
      if (result.status === 200 && result.body) {
        const profile = result.body.content;
        if (profile.own) setBalance(profile.balance);
        setState({ status: 'ready', profile });
      } else if (result.status === 404) {
        setState({ status: 'notFound' });
      } else {
        setState({ status: 'failed', text: errorText(result) });
      }
    });
    return () => {
      current = false;
    };
  }, [name, setBalance, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const changeFolders = useCallback((change: FolderChange) => {
    setState((s) =>
      s.status === 'ready' && s.profile.own
        ? { ...s, profile: { ...s.profile, folders: applyToFolderList(s.profile.folders, change) } }
        : s,
    );
  }, []);
  const own = state.status === 'ready' && state.profile.own;
  useSocketEvent(SocketEvents.folderChanged, changeFolders);
  useResync(() => {
    if (own) reload();
  });

  return { ...state, reload, changeFolders };
}
