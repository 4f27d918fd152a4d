import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts';
import { MailModule } from '../mail';
import { WEBHOOK_QUEUE, WebhookDeliveries } from './webhook-deliveries';
import {
  WebhookDelivery,
  WebhookDeliverySchema,
  WebhookEndpoint,
  WebhookEndpointSchema,
} from './webhook.schema';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Signed webhooks: the owner's endpoints (API) and their deliveries (a Bull queue worked by the
 * worker's WebhookDeliveryProcessor, fed by WebhooksListener from the domain events).
 */
@Module({
  imports: [
    AccountsModule,
    MailModule,
    BullModule.registerQueue({ name: WEBHOOK_QUEUE }),
    MongooseModule.forFeature([
      { name: WebhookEndpoint.name, schema: WebhookEndpointSchema },
      { name: WebhookDelivery.name, schema: WebhookDeliverySchema },
    ]),
  ],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookDeliveries],
  exports: [WebhooksService, WebhookDeliveries],
})
export class WebhooksModule {}
