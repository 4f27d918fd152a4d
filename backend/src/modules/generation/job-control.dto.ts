import { ApiProperty } from '@nestjs/swagger';
import type { RetryJobRequest } from '@studio/contracts';
import { WholeNumber } from '../../common/validation';

/** Credits a retry may be confirmed at (far above any job's price). */
const COST_RANGE = { min: 0, max: 1_000_000 };

export class RetryJobDto implements RetryJobRequest {
  @ApiProperty({
    description:
      'The price the user confirmed; 409 with the current `cost` when the job now costs something else',
    example: 4,
  })
  @WholeNumber('Expected cost', COST_RANGE)
  expectedCost!: number;
}
