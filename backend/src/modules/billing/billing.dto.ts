import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsDateString,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  Max,
  Min,
  IsString,
  Matches,
  MaxLength,
  NotEquals,
} from 'class-validator';
import {
  COINS_PER_PACK,
  CREDIT_AMOUNT_MAX,
  HISTORY_PAGE_SIZE,
  Messages,
  PACKS_MAX,
  PACKS_MIN,
  REASON_MAX,
  wholeNumberMessage,
} from '@studio/contracts';
import { PageQueryDto } from '../../common/page-query.dto';
import { SafeName, trimmed, WholeNumber } from '../../common/validation';

const PACKS_MESSAGE = wholeNumberMessage('coin_amount', { min: PACKS_MIN, max: PACKS_MAX });

export class CheckoutDto {
  @ApiProperty({ example: 'coins-200' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'coin_id must be text' })
  @MaxLength(64)
  coin_id!: string;

  @ApiProperty({
    example: 2,
    minimum: PACKS_MIN,
    maximum: PACKS_MAX,
    description: `Packs of ${COINS_PER_PACK} coins: a JSON whole number from ${PACKS_MIN} to ${PACKS_MAX}`,
  })
  @IsDefined({ message: Messages.missingFields })
  // A JSON number only (text is refused, unlike WholeNumber's '5'), never rounded or clamped.
  @IsInt({ message: PACKS_MESSAGE })
  @Min(PACKS_MIN, { message: PACKS_MESSAGE })
  @Max(PACKS_MAX, { message: PACKS_MESSAGE })
  coin_amount!: number;
}

export class CheckoutSessionParams {
  @ApiProperty({ example: 'cs_test_a1b2c3', description: 'The Stripe Checkout session id' })
  @Matches(/^cs_\w{1,250}$/, { message: 'Not a checkout session id' })
  sessionId!: string;
}

export class PortalDto {
  @ApiPropertyOptional({ description: 'A checkout session of the caller, to find the customer' })
  @IsOptional()
  @IsString({ message: 'session_id must be text' })
  @MaxLength(255)
  session_id?: string;

  @ApiPropertyOptional({ description: "The spec's client sends its user name; it must be the session's" })
  @IsOptional()
  @IsString({ message: 'username must be text' })
  username?: string;

  @ApiPropertyOptional()
  @IsOptional()
  cart?: unknown;
}

export class HistoryQueryDto extends PageQueryDto(HISTORY_PAGE_SIZE) {}

class CreditChangeDto {
  @ApiProperty({ example: 'alice' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'username must be text' })
  @MaxLength(64)
  username!: string;

  @ApiProperty({ example: 'Inpainting outage on 2026-11-20', maxLength: REASON_MAX })
  @Transform(trimmed)
  @IsNotEmpty({ message: 'A reason is required' })
  @IsString({ message: 'reason must be text' })
  @MaxLength(REASON_MAX, { message: `reason must be at most ${REASON_MAX} characters` })
  @SafeName()
  reason!: string;

  @ApiPropertyOptional({
    description: 'Idempotency key: repeating a request with the same key changes nothing',
  })
  @IsOptional()
  @IsString({ message: 'requestId must be text' })
  @MaxLength(100)
  requestId?: string;
}

export class ReimburseDto extends CreditChangeDto {
  @ApiProperty({
    example: 20,
    minimum: 1,
    maximum: CREDIT_AMOUNT_MAX,
    description: 'Also capped per call and per day by role (STAFF_CREDIT_LIMITS)',
  })
  @IsNotEmpty({ message: Messages.missingFields })
  @WholeNumber('amount', { min: 1, max: CREDIT_AMOUNT_MAX })
  amount!: number;
}

export class GrantDto extends ReimburseDto {}

export class AdjustDto extends CreditChangeDto {
  @ApiProperty({
    example: -5,
    minimum: -CREDIT_AMOUNT_MAX,
    maximum: CREDIT_AMOUNT_MAX,
    description: 'Signed; the balance never goes below zero. Increases are capped like grants',
  })
  @IsNotEmpty({ message: Messages.missingFields })
  @WholeNumber('amount', { min: -CREDIT_AMOUNT_MAX, max: CREDIT_AMOUNT_MAX })
  @NotEquals(0, { message: 'amount must not be 0' })
  amount!: number;
}

export class BulkReimburseDto {
  @ApiProperty({ example: 'faceSwap' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'tool must be text' })
  @MaxLength(64)
  tool!: string;

  @ApiProperty({ example: '2026-11-20T00:00:00Z' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsDateString({}, { message: 'from must be a date and time (ISO 8601)' })
  from!: string;

  @ApiProperty({ example: '2026-11-21T00:00:00Z' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsDateString({}, { message: 'to must be a date and time (ISO 8601)' })
  to!: string;

  @ApiProperty({ example: 'Face swap outage' })
  @Transform(trimmed)
  @IsNotEmpty({ message: 'A reason is required' })
  @IsString({ message: 'reason must be text' })
  @MaxLength(REASON_MAX)
  @SafeName()
  reason!: string;
}

export class ApprovalDecisionDto {
  @ApiProperty({ enum: ['approve', 'reject'] })
  @IsIn(['approve', 'reject'], { message: "decision must be 'approve' or 'reject'" })
  decision!: 'approve' | 'reject';
}

export class ApprovalParams {
  @ApiProperty({ description: 'The approval request id' })
  @Matches(/^[0-9a-f]{24}$/, { message: 'Not an approval request id' })
  id!: string;
}

export class PatreonSecretDto {
  @ApiProperty()
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'secret must be text' })
  @MaxLength(200)
  secret!: string;

  @ApiPropertyOptional({ description: "The spec's client sends its user name; it must be the session's" })
  @IsOptional()
  @IsString({ message: 'username must be text' })
  username?: string;
}

export class IssuePatreonSecretsDto {
  @ApiPropertyOptional({ default: 1, minimum: 1, maximum: 100 })
  @IsOptional()
  @WholeNumber('count', { min: 1, max: 100 })
  count?: number;
}
