import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { NoticeSeverity } from '@studio/contracts';
import { SafeName } from '../../common/validation';

export class SetNoticeDto {
  @ApiProperty({ description: 'What the tool screen shows', maxLength: 500 })
  @IsString()
  @MaxLength(500)
  @SafeName()
  text!: string;

  @ApiProperty({ enum: ['info', 'warning', 'error'] })
  @IsIn(['info', 'warning', 'error'])
  severity!: NoticeSeverity;

  @ApiProperty()
  @IsBoolean()
  enabled!: boolean;
}

export class SetFlagsDto {
  @ApiPropertyOptional({ description: 'Video face swap (beta) on or off' })
  @IsOptional()
  @IsBoolean()
  videoFaceSwap?: boolean;
}
