import {
  API_PREFIX,
  DEFAULT_DOWNLOAD_NAME,
  DOWNLOAD_LINK_CLEANUP_MS,
  type ContentItem,
} from '@studio/contracts';

/** The file name the server chose (Content-Disposition), else the title or the spec's default. */
function fileNameOf(response: Response, item: ContentItem): string {
  const header = response.headers.get('Content-Disposition') ?? '';
  const match = /filename="([^"]+)"/.exec(header);
  return match?.[1] ?? item.title ?? DEFAULT_DOWNLOAD_NAME[item.kind];
}

/** Downloads one of the user's items through POST /api/downloadContent; false when it failed. */
export async function downloadItem(item: ContentItem): Promise<{ ok: true } | { ok: false; text: string }> {
  const response = await fetch(`${API_PREFIX}/downloadContent`, {
    method: 'POST',
    credentials: 'include',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(item.title ? { url: item.url, title: item.title } : { url: item.url }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { content?: string } | null;
    return { ok: false, text: body?.content ?? 'Download failed' };
  }
  const blob = await response.blob();
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = fileNameOf(response, item);
  document.body.appendChild(link);
  link.click();
  setTimeout(() => {
    URL.revokeObjectURL(href);
    link.remove();
  }, DOWNLOAD_LINK_CLEANUP_MS);
  return { ok: true };
}
