import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsMongoId,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { API_KEY_LIMITS, API_KEY_SCOPES, type ApiKeyScope } from '@studio/contracts';

export class CreateApiKeyDto {
  @ApiProperty({ maxLength: API_KEY_LIMITS.nameMaxLength, example: 'Weekly upscales' })
  @IsString()
  @MaxLength(API_KEY_LIMITS.nameMaxLength)
  @Matches(/\S/, { message: 'Give the key a name' })
  @Matches(/^[^\p{Cc}]*$/u, { message: 'The name may not contain control characters' })
  name!: string;

  @ApiProperty({ enum: API_KEY_SCOPES, isArray: true, example: ['read', 'tools'] })
  @IsArray()
  @ArrayMinSize(1, { message: 'Choose at least one permission' })
  @ArrayUnique()
  @IsIn(API_KEY_SCOPES, { each: true })
  scopes!: ApiKeyScope[];

  @ApiPropertyOptional({ description: 'Coins per calendar month (UTC) this key may spend', minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(API_KEY_LIMITS.monthlyCapMax)
  monthlyCap?: number;

  @ApiPropertyOptional({ description: 'The key stops working when you change your password' })
  @IsOptional()
  @IsBoolean()
  revokeOnPasswordChange?: boolean;
}

export class ApiKeyParams {
  @ApiProperty()
  @IsMongoId({ message: 'No such API key' })
  keyId!: string;
}
