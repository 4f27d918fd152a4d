/**
 * The webhooks module's face: a user's signed webhook endpoints (Standard Webhooks), their
 * deliveries' queue and its processor, and the listener that turns domain events into deliveries.
 *
 * Above accounts (the owner's address for the switched-off mail), auth, events and mail; nothing
 * imports it but the apps (the API serves its routes, the worker runs its processor and listener).
 * It hears of an account's deletion through `account.deleted`, so account-data need not know it.
 */
export { addressAllowed, type AddressPolicy } from './address-guard';
export { WEBHOOK_QUEUE, WebhookDeliveries } from './webhook-deliveries';
export { WebhookDeliveryProcessor } from './webhook-delivery.processor';
export { signWebhook } from './webhook-signer';
export { WebhooksListener } from './webhooks.listener';
export { WebhooksModule } from './webhooks.module';
export { WebhooksService } from './webhooks.service';
