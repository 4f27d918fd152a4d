import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import nodemailer, { type Transporter } from 'nodemailer';
import type { ServiceState } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
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
  ) {}

  onModuleInit(): void {
    if (this.config.SMTP_URL) {
      this.transport = nodemailer.createTransport(this.config.SMTP_URL);
    } else if (this.config.NODE_ENV === 'production') {
      this.logger.warn(
        'SMTP_URL is not set: account mails (verification, password reset) only go to the log',
      );
    }
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

  /** Sends now and waits for the server's answer. */
  async send(to: string, mail: MailContent): Promise<void> {
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
