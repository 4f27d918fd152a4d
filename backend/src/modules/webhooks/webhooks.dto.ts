import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsMongoId,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_LIMITS, type WebhookEventType } from '@studio/contracts';

export class CreateWebhookDto {
  @ApiProperty({
    maxLength: WEBHOOK_LIMITS.urlMaxLength,
    example: 'https://example.com/studio-webhook',
    description: 'https:// and a public address (checked now and at every delivery)',
  })
  @IsString()
  @MaxLength(WEBHOOK_LIMITS.urlMaxLength)
  @Matches(/\S/, { message: 'Give the address of your receiver' })
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['job.succeeded', 'job.failed'] })
  @IsArray()
  @ArrayMinSize(1, { message: 'Choose at least one event' })
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  events!: WebhookEventType[];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'Switch the endpoint on (its failures forgotten) or off' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'Choose at least one event' })
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  events?: WebhookEventType[];
}

export class WebhookParams {
  @ApiProperty()
  @IsMongoId({ message: 'No such webhook endpoint' })
  endpointId!: string;
}

export class DeliveryParams {
  @ApiProperty({ example: 'msg_…' })
  @Matches(/^msg_[A-Za-z0-9_-]{27}$/, { message: 'No such webhook delivery' })
  deliveryId!: string;
}

export class DeliveriesQuery {
  @ApiPropertyOptional({ description: 'Only the deliveries of this endpoint' })
  @IsOptional()
  @IsMongoId({ message: 'No such webhook endpoint' })
  endpointId?: string;
}
