import type { FolderSummary, ProfileContent } from '@studio/contracts';
import { useEffect, useState } from 'react';
import { apiGet } from '../api/client';
import { useSession } from '../session/useSession';

/** The logged-in user's folders (from their own profile), for the tools' folder selects. */
export function useOwnFolders(): { folders: FolderSummary[]; loading: boolean } {
  const { account, setBalance } = useSession();
  const [state, setState] = useState<{ folders: FolderSummary[]; loading: boolean }>({
    folders: [],
    loading: true,
  });

  useEffect(() => {
    if (!account) return;
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    void apiGet<ProfileContent>(`/getProfile/${encodeURIComponent(account)}`).then((result) => {
      if (!current) return;
      const profile = result.ok ? result.body?.content : undefined;
      if (profile?.own) {
        setBalance(profile.balance);
        setState({ folders: profile.folders, loading: false });
      } else {
        setState({ folders: [], loading: false });
      }
    });
    return () => {
      current = false;
    };
  }, [account, setBalance]);

  return state;
}
