import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { ModerationMessages } from '@studio/contracts';
import { trimmed } from '../../common/validation';

export class ModerationDecisionDto {
  @ApiProperty({
    description: "Why, in the moderator's words: audited, and shown to the owner",
    minLength: 10,
  })
  @Transform(trimmed)
  @IsString()
  @MinLength(10, { message: ModerationMessages.reasonRequired })
  @MaxLength(500)
  reason!: string;
}
