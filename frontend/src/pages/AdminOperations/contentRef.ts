/** An item id as the API makes them (a MongoDB ObjectId: 24 hex digits). */
const ITEM_ID = /^[0-9a-f]{24}$/i;

/** The content path the API serves an item at: /api/content/{itemId}.{extension}. */
const CONTENT_PATH = /\/api\/content\/([0-9a-f]{24})(?:\.[0-9a-z]+)?\/?$/i;

/**
 * The item id an admin means by what they pasted: the id itself, or the item's content URL,
 * absolute (https://studio.example.com/api/content/{id}.png?x=1) or as a path. Null when neither.
 */
export function itemIdFrom(input: string): string | null {
  const text = input.trim();
  if (ITEM_ID.test(text)) return text.toLowerCase();
  let path: string;
  try {
    path = new URL(text, 'http://localhost').pathname;
  } catch {
    return null;
  }
  const match = CONTENT_PATH.exec(path);
  return match ? match[1].toLowerCase() : null;
}
