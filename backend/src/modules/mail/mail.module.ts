import { Global, Module } from '@nestjs/common';
import { MailService } from './mail.service';

/** Outgoing mail (SMTP through nodemailer), for accounts and health. */
@Global()
@Module({
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
