import { API_PREFIX, Messages } from '@studio/contracts';
import { retryAfterMs, retryDelayMs } from './retryPolicy';

/** Status used when a request never reached the server (network failure). */
export const NO_RESPONSE = 0;

const BAD_GATEWAY = 502;
const SERVICE_UNAVAILABLE = 503;
const GATEWAY_TIMEOUT = 504;

/** What the server says while Redis or the database is down (503 with Retry-After). */
export const STUDIO_UNAVAILABLE = Messages.briefOutage;

/**
 * The same when nothing answered: whether a write that got no answer was done is unknown here, so
 * no word on charges (the job tray and the balance are read again once the studio is back).
 */
export const STUDIO_NOT_ANSWERING = Messages.studioNotAnswering;

/** Texts the banner already says: screens do not toast them again (ui/toast.ts). */
export function isOutageText(text: string): boolean {
  return text === STUDIO_UNAVAILABLE || text === STUDIO_NOT_ANSWERING;
}

/**
 * Whether an answer means "the studio as a whole cannot serve now", the banner's case: no answer
 * at all, a proxy in front saying the API did not answer (502, 504), or the API's own brief-outage
 * 503. Other 503s (a tool or payments not configured) are that feature's own answer, not an outage.
 */
export function isStudioUnavailable(status: number, content: unknown): boolean {
  if (status === NO_RESPONSE || status === BAD_GATEWAY || status === GATEWAY_TIMEOUT) return true;
  return status === SERVICE_UNAVAILABLE && content === STUDIO_UNAVAILABLE;
}

/** The readiness route: 200 once the database and Redis answer again. */
export const READINESS_PATH = '/health/ready';

type Listener = () => void;

/**
 * Whether the studio is reachable, as this tab has seen it: one state for the whole page, so an
 * outage shows one banner (StudioBanner), not a message per failed request. It turns "down" on
 * the first outage answer and back "up" only when the readiness route says so (probed with the
 * read backoff while down, and at once when any request succeeds or the socket reconnects), so
 * the routes that work without Redis cannot make the banner flicker while a part is still down.
 */
export class StudioAvailability {
  private down = false;
  private serverSaid = false;
  private readonly listeners = new Set<Listener>();
  private readonly backListeners = new Set<Listener>();
  private readonly waiters = new Set<Listener>();
  private generation = 0;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private probing = false;
  private attempt = 0;

  constructor(private readonly probe: () => Promise<{ status: number; retryAfter?: number }>) {}

  get unavailable(): boolean {
    return this.down;
  }

  /** The banner's text while the studio is unavailable, null while it is not. */
  get message(): string | null {
    if (!this.down) return null;
    return this.serverSaid ? STUDIO_UNAVAILABLE : STUDIO_NOT_ANSWERING;
  }

  /** For useSyncExternalStore: called on every change of `message`. */
  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): string | null => this.message;

  /** Called once each time the studio comes back: what was pushed meanwhile may have been lost. */
  onBack(listener: Listener): () => void {
    this.backListeners.add(listener);
    return () => this.backListeners.delete(listener);
  }

  /** Changes on reset(): a read that began before it stops retrying. */
  get epoch(): number {
    return this.generation;
  }

  /** Resolves when the studio is back, or after `ms`, whichever comes first. */
  waitForBack(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /**
   * An outage answer (or none): show the banner and start asking when it is back. `serverSaid`:
   * the API itself answered its brief-outage 503, whose words the banner then takes. The
   * readiness route is asked on the backoff and its own Retry-After (it is the cheapest route and
   * says how often to ask it), not on the Retry-After of the request that failed: that one is for
   * repeating that request.
   */
  reportUnavailable(serverSaid = false): void {
    this.markDown(serverSaid);
    if (!this.probing && this.probeTimer === undefined) this.schedule();
  }

  private markDown(serverSaid: boolean): void {
    const before = this.message;
    if (!this.down) {
      this.down = true;
      this.serverSaid = false;
      this.attempt = 0;
    }
    if (serverSaid) this.serverSaid = true;
    if (this.message !== before) this.emit(this.listeners);
  }

  /** A request was answered normally: if the studio was down, check now whether it is back. */
  reportAnswered(): void {
    if (this.down) this.probeNow();
  }

  /** Ask at once (the socket reconnected, or dropped): the banner follows the answer. */
  probeNow(): void {
    if (this.probing) return;
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    void this.runProbe();
  }

  private schedule(retryAfter?: number): void {
    this.probeTimer = setTimeout(
      () => {
        this.probeTimer = undefined;
        void this.runProbe();
      },
      retryDelayMs(this.attempt++, retryAfter),
    );
  }

  private async runProbe(): Promise<void> {
    this.probing = true;
    let answer: { status: number; retryAfter?: number };
    try {
      answer = await this.probe();
    } catch {
      answer = { status: NO_RESPONSE };
    }
    this.probing = false;
    // Readiness answers 503 while a part is down; anything but an outage answer means it is back
    // (a deployment without the route, 404, serves requests too).
    const downNow = answer.status === NO_RESPONSE || answer.status >= 500;
    if (downNow) {
      this.markDown(false);
      if (this.probeTimer === undefined) this.schedule(answer.retryAfter);
      return;
    }
    if (!this.down) return;
    this.down = false;
    this.serverSaid = false;
    this.attempt = 0;
    this.emit(this.listeners);
    this.emit(this.waiters);
    this.emit(this.backListeners);
  }

  private emit(listeners: Set<Listener>): void {
    for (const listener of [...listeners]) listener();
  }

  /** Forgets the outage and stops probing; reads waiting for the studio give up now (tests). */
  reset(): void {
    this.generation += 1;
    this.emit(this.waiters);
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.probing = false;
    this.down = false;
    this.serverSaid = false;
    this.attempt = 0;
  }
}

async function probeReadiness(): Promise<{ status: number; retryAfter?: number }> {
  const response = await fetch(`${API_PREFIX}${READINESS_PATH}`, {
    credentials: 'include',
    headers: { Accept: 'application/json' },
    cache: 'no-store',
  });
  return { status: response.status, retryAfter: retryAfterMs(response.headers?.get('Retry-After')) };
}

/** The page's one view of the studio's availability. */
export const studioAvailability = new StudioAvailability(probeReadiness);
