import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import nodemailer, { type Transporter } from 'nodemailer';
import { MAILS_PER_ADDRESS_PER_HOUR, type ServiceState } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import type { MailContent } from './mail-templates';

/** How long a health answer about the SMTP server is reused (each probe opens a connection). */
const PROBE_CACHE_MS = 30_000;

/**
 * Sends the account mails over SMTP (nodemailer) to `SMTP_URL`; without one, each mail is written
 * to the log (links included), so a local run without a mail server still works.
 *
 * Mails leave in the background (`dispatch`): an answer never waits for, or depends on, the mail
 * server, so a register or forgot-password request takes the same path whether or not a mail went
 * out, and a slow mail server cannot hold requests.
 */
@Injectable()
export class MailService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(MailService.name);
  private transport?: Transporter;
  private readonly inFlight = new Set<Promise<void>>();
  private probed?: { at: number; state: ServiceState };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: HttpAdapterHost,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  onModuleInit(): void {
    // Production never gets here without SMTP_URL (the configuration refuses it).
    if (this.config.SMTP_URL) this.transport = nodemailer.createTransport(this.config.SMTP_URL);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    this.transport?.close();
  }

  /** 'log' without SMTP_URL; otherwise whether the SMTP server answers (cached for 30 s). */
  async state(): Promise<ServiceState | 'log'> {
    if (!this.transport) return 'log';
    if (this.probed && Date.now() - this.probed.at < PROBE_CACHE_MS) return this.probed.state;
    const state: ServiceState = await this.transport.verify().then(
      () => 'up' as const,
      () => 'down' as const,
    );
    this.probed = { at: Date.now(), state };
    return state;
  }

  /** Sends now (within the per-address cap, see `admit`) and waits for the server's answer. */
  async send(to: string, mail: MailContent): Promise<void> {
    if (await this.admit(to)) await this.deliver(to, mail);
  }

  /**
   * Counts one mail to `to` in this hour's window; false (logged) past MAILS_PER_ADDRESS_PER_HOUR.
   * A caller that must do work for a mail (issue a link's token) asks first, then `deliver`s.
   */
  async admit(to: string): Promise<boolean> {
    // Keyed by a hash: no addresses in Redis keys.
    const address = createHash('sha256').update(to.trim().toLowerCase()).digest('hex');
    const key = `${this.config.REDIS_PREFIX}:mail-cap:${address}`;
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, 3600, 'NX').exec()) as [
      [Error | null, number],
    ];
    if (count <= MAILS_PER_ADDRESS_PER_HOUR) return true;
    this.logger.warn(`mail not sent: its address had ${MAILS_PER_ADDRESS_PER_HOUR} this hour`);
    return false;
  }

  /** Sends an admitted mail now and waits for the server's answer. */
  async deliver(to: string, mail: MailContent): Promise<void> {
    if (!this.transport) {
      this.logger.log(`mail to ${to}: ${mail.subject}\n${mail.text}`);
      return;
    }
    await this.transport.sendMail({ from: this.config.MAIL_FROM, to, ...mail });
  }

  /** Sends in the background; a failure is logged (the person can ask again: resend, forgot). */
  dispatch(to: string, mail: MailContent): void {
    this.inBackground(`mail "${mail.subject}" could not be sent`, () => this.send(to, mail));
  }

  /**
   * Runs `work` after the answer, not before it: for work whose cost would tell a stranger
   * something (looking an address up, issuing a link's token). A failure is logged as `failure`;
   * shutdown waits for the work.
   */
  inBackground(failure: string, work: () => Promise<void>): void {
    const running = Promise.resolve()
      .then(work)
      .catch((err: Error) => this.logger.error(`${failure}: ${err.message}`))
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  /**
   * An absolute link into the app. From PUBLIC_URL, never from the request's Host header: a forged
   * Host would otherwise put an attacker's site in a password reset mail with a valid token.
   * Without PUBLIC_URL (local runs), this server's own address.
   */
  link(path: string): string {
    if (this.config.PUBLIC_URL) return new URL(path, this.config.PUBLIC_URL).toString();
    const address = this.http.httpAdapter?.getHttpServer()?.address() as AddressInfo | null;
    const port = address?.port ?? this.config.PORT;
    const host = ['0.0.0.0', '::'].includes(this.config.HOST) ? 'localhost' : this.config.HOST;
    return new URL(path, `http://${host}:${port}`).toString();
  }
}
