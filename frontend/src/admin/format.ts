import { creditsToDollars } from '@studio/contracts';

/** The browser's IANA time zone, which the server uses for days, weeks and months. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const pad = (value: number) => String(value).padStart(2, '0');

/** YYYY-MM-DD HH:mm:ss in the browser's zone (spec: admin logs table). */
export function formatLocalDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

export function formatDollars(dollars: number): string {
  return `$${dollars.toFixed(2)}`;
}

export function creditsAsDollars(credits: number): string {
  return formatDollars(creditsToDollars(credits));
}
