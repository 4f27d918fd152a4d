/** A time from the API in the reader's locale, or `empty` when there is none. */
export function formatWhen(iso: string | undefined, empty = '—'): string {
  return iso ? new Date(iso).toLocaleString() : empty;
}
