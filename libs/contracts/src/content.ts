/** Folders and their content (spec sections 2 and 3): shapes shared by the API and the screens. */

export type ContentKind = 'image' | 'video';

/** An item of generated content. `url` names it for this API only; it is never fetched from elsewhere. */
export interface ContentItem {
  _id: string;
  url: string;
  title?: string;
  kind: ContentKind;
  /** Present (false) when the item is hidden; the spec's screen hides items with the flag defined. */
  visible?: boolean;
  createdAt: string;
  jobId?: string;
  /** Set when an admin took the item down: why, and whether the file was deleted. */
  takedown?: { reason: string; mode: 'hide' | 'delete'; at: string };
}

/** An inpaint batch entry: a title and how many images it makes; 'STATUS: ...' while processing. */
export interface InpaintEntry {
  _id: string;
  title: string;
  amount: number;
}

export interface FolderContents {
  /** The folder's name (the page's heading; not in the spec's answer, which had only the lists). */
  title?: string;
  inpaint: InpaintEntry[];
  inpaints: ContentItem[];
}

export interface DownloadRequest {
  url: string;
  title?: string;
}

export const ContentMessages = {
  deleted: 'Deleted!',
  itemNotFound: 'Item not found',
  alreadyDecided: 'A moderator has decided on this item already',
  folderNotFound: 'Folder not found',
  folderNotEmpty: 'Only an empty folder can be deleted',
  noInpaints: 'No inpaints found.',
  processing: 'Please wait, we are processing your request.',
  noTitle: 'No Title',
  takenDown: 'This item was taken down',
  rangeNotSatisfiable: 'The requested range lies outside the file',
} as const;

/** Download names when an item has no title (spec section 7). */
export const DEFAULT_DOWNLOAD_NAME = { image: 'Content', video: 'Swapped Video' } as const;

/** Where the API serves content items: {CONTENT_PATH}{itemId}.{extension}. */
export const CONTENT_PATH = '/api/content/';

/**
 * The API path that serves an item to its owner. It ends in the file's extension because the
 * spec's screens tell a video by `.mp4` in the url.
 */
export const contentUrl = (itemId: string, extension: string) => `${CONTENT_PATH}${itemId}.${extension}`;

/** An item id as the API makes them (a MongoDB ObjectId: 24 hex digits). */
const ITEM_ID = /^[0-9a-f]{24}$/i;

/**
 * The item id someone means by what they pasted: the id itself, or the item's content URL (the
 * inverse of contentUrl), absolute (https://studio.example.com/api/content/{id}.png?x=1) or as a
 * path. Null when neither.
 */
export function itemIdFrom(input: string): string | null {
  const text = input.trim();
  if (ITEM_ID.test(text)) return text.toLowerCase();
  // The path alone: without scheme and host, query and fragment.
  const path = text.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0];
  if (!path.startsWith(CONTENT_PATH)) return null;
  const match = /^([0-9a-f]{24})(?:\.[0-9a-z]+)?\/?$/i.exec(path.slice(CONTENT_PATH.length));
  return match ? match[1].toLowerCase() : null;
}
