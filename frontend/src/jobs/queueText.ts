import { formatCount } from '@studio/contracts';

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const units = n % 10;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : units === 1 ? 'st' : units === 2 ? 'nd' : units === 3 ? 'rd' : 'th';
  return `${formatCount(n)}${suffix}`;
}

/** Seconds until a job should finish, in the rough words an estimate deserves. */
export function formatEta(seconds: number): string {
  if (seconds < 1) return 'any moment now';
  if (seconds < 10) return 'a few seconds';
  if (seconds < 55) return `about ${Math.round(seconds / 5) * 5} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `about ${hours} h ${rest} min` : `about ${hours} h`;
}

/** Seconds left until `etaAt` (epoch ms), never below zero; undefined when no estimate is known. */
export function secondsLeft(etaAt: number | undefined, now: number): number | undefined {
  return etaAt === undefined ? undefined : Math.max(0, (etaAt - now) / 1000);
}

/** What a waiting job says: "3rd in line · about 1 min", "Next in line · about 20 s". */
export function waitingText(position: number | undefined, eta?: number): string {
  const place = !position
    ? 'Waiting for a free worker'
    : position === 1
      ? 'Next in line'
      : `${ordinal(position)} in line`;
  return eta === undefined ? place : `${place} · ${formatEta(eta)}`;
}

/** What a running job says: "Working on it · about 40 s left". */
export function runningText(eta?: number): string {
  if (eta === undefined) return 'Working on it…';
  return eta < 1 ? 'Working on it · finishing' : `Working on it · ${formatEta(eta)} left`;
}

/** What an open job says, from its state, place in line and estimate at `now`. */
export function openJobText(job: { state: string; position?: number; etaAt?: number }, now: number): string {
  const eta = secondsLeft(job.etaAt, now);
  return job.state === 'queued' ? waitingText(job.position, eta) : runningText(eta);
}
