import type { ProfileContent } from '@studio/contracts';
import { useEffect, useState } from 'react';
import { apiGet, errorText } from '../../api/client';
import { useSession } from '../../session/useSession';

export type ProfileState =
  | { status: 'loading' }
  | { status: 'ready'; profile: ProfileContent }
  | { status: 'notFound' }
  | { status: 'failed'; text: string };

/** Loads GET /api/getProfile/{name}; the own profile also refreshes the header balance. */
export function useProfile(name: string | null): ProfileState & { reload(): void } {
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

  return { ...state, reload: () => setVersion((v) => v + 1) };
}
