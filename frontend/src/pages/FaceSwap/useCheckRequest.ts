import { useEffect, useState } from 'react';
import { apiUpload, errorText } from '../../api/client';

/** One file of a check's upload: form field, content, file name. */
export type CheckPart = [field: string, blob: Blob, fileName: string];

/**
 * A free face check (image or video swap): posts `parts` to `path` once per set of files (a new
 * array, memoised by the caller, starts a new check; null clears it) and keeps the latest answer;
 * an answer for files no longer chosen is dropped.
 */
export function useCheckRequest<T extends object>(path: string, parts: CheckPart[] | null) {
  const [check, setCheck] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  useEffect(() => {
    setCheck(null);
    setError(null);
    setChecking(false);
    if (!parts) return;
    let current = true;
    const form = new FormData();
    for (const [field, blob, fileName] of parts) form.append(field, blob, fileName);
    setChecking(true);
    void apiUpload<T | string>(path, form).then((result) => {
      if (!current) return;
      setChecking(false);
      const content = result.body?.content;
      if (result.ok && content && typeof content === 'object') setCheck(content);
      else setError(errorText(result));
    });
    return () => {
      current = false;
    };
  }, [path, parts]);

  return { check, error, checking };
}
