type Cell = string | number | undefined | null;

/**
 * RFC 4180 CSV (quotes doubled, fields with commas, quotes or line breaks quoted). Cells starting
 * with = + - @ or a tab are prefixed with ' so a spreadsheet does not run them as formulas (reasons
 * quote folder names people wrote). Numbers are written as they are. Small enough not to need a library.
 */
export function toCsv(header: string[], rows: Cell[][]): string {
  const cell = (value: Cell): string => {
    if (value === undefined || value === null) return '';
    if (typeof value === 'number') return String(value);
    const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
