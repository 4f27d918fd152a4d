import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { REPORT_LIMITS } from '@studio/contracts';

export class ReportDecisionDto {
  @ApiProperty({ enum: ['remove', 'reject'] })
  @IsIn(['remove', 'reject'])
  action!: 'remove' | 'reject';

  @ApiProperty({
    description: 'The reason both the reporter and the owners read',
    maxLength: REPORT_LIMITS.reasonChars,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(REPORT_LIMITS.reasonChars)
  reason!: string;
}

export class AppealDto {
  @ApiProperty({ description: 'Why the removal was wrong', maxLength: REPORT_LIMITS.explanationChars })
  @IsString()
  @IsNotEmpty()
  @MaxLength(REPORT_LIMITS.explanationChars)
  text!: string;
}

export class ReportListQuery {
  @ApiPropertyOptional({ enum: ['open', 'decided'], default: 'open' })
  @IsOptional()
  @IsIn(['open', 'decided'])
  status?: 'open' | 'decided';
}

export class AppealDecisionDto {
  @ApiProperty({
    enum: ['upheld', 'reversed'],
    description: 'upheld: the removal stands; reversed: the item is put back (DSA Art. 20(4))',
  })
  @IsIn(['upheld', 'reversed'])
  outcome!: 'upheld' | 'reversed';

  @ApiProperty({ description: 'The reason the owner reads', maxLength: REPORT_LIMITS.reasonChars })
  @IsString()
  @IsNotEmpty()
  @MaxLength(REPORT_LIMITS.reasonChars)
  reason!: string;
}

export class TransparencyQuery {
  @ApiProperty({ description: 'Start of the period (ISO date, included)', example: '2026-07-01' })
  @IsString()
  @IsNotEmpty()
  from!: string;

  @ApiProperty({ description: 'End of the period (ISO date, excluded)', example: '2027-01-01' })
  @IsString()
  @IsNotEmpty()
  to!: string;
}
