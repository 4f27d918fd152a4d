import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDateString,
  IsIn,
  IsMongoId,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import {
  BULK_INPAINT_AMOUNT,
  CLONE_AMOUNT,
  JOB_HISTORY_PAGE_SIZE,
  JobStates,
  JobTools,
  SUPER_RESOLUTION_SCALES,
  type JobHistoryQuery,
  type JobState,
  type JobTool,
} from '@studio/contracts';
import { PromptText, SafeName, WholeNumber } from '../../common/validation';

/** Fields shared by the tool requests (multipart fields arrive as strings). */
class ToolRequestDto {
  @ApiPropertyOptional({ description: "The signed-in user's name (checked against the session)" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  author?: string;

  @ApiPropertyOptional({ description: 'Folder id for the results' })
  @IsOptional()
  @IsMongoId({ message: 'folder must be a folder id' })
  folder?: string;
}

export class GenerateNoiseDto extends ToolRequestDto {
  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'The image to copy' })
  original?: unknown;

  @ApiPropertyOptional({ description: 'Copies to make, 1..100 (with `original`)', example: '3' })
  @IsOptional()
  @IsString()
  @WholeNumber('Amount', CLONE_AMOUNT, { keepText: true })
  amount?: string;
}

export class SuperResolutionDto extends ToolRequestDto {
  @ApiPropertyOptional({ description: 'The image as a data URL (JSON), or a file (multipart)' })
  @IsOptional()
  original?: unknown;

  @ApiPropertyOptional({
    description: 'Upscaling factor (default 2); the price is per output megapixel',
    enum: SUPER_RESOLUTION_SCALES,
  })
  @IsOptional()
  @IsIn([...SUPER_RESOLUTION_SCALES, ...SUPER_RESOLUTION_SCALES.map(String)], {
    message: `scale must be one of ${SUPER_RESOLUTION_SCALES.join(', ')}`,
  })
  scale?: number | string;
}

export class FaceSwapDto extends ToolRequestDto {
  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'Swap0: the face image' })
  Swap0?: unknown;

  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'Swap1: the target image' })
  Swap1?: unknown;

  @ApiPropertyOptional({
    description: 'The user attests the consent of the person whose face is used',
    enum: ['true'],
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  consent?: string;

  @ApiPropertyOptional({ description: 'Index of the source face (largest first; default 0)' })
  @IsOptional()
  @IsString()
  sourceFace?: string;

  @ApiPropertyOptional({
    description: "Target faces to replace: '0,2' or 'all' (largest first; default '0')",
  })
  @IsOptional()
  @IsString()
  targetFaces?: string;
}

export class InpaintDto extends ToolRequestDto {
  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'The image' })
  original?: unknown;

  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'PNG mask: white = repaint' })
  mask?: unknown;

  @ApiPropertyOptional({ description: 'What to paint in the masked area' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @PromptText()
  prompt?: string;

  @ApiPropertyOptional({ description: 'Name of a bulk batch' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @SafeName()
  inpaintName?: string;

  @ApiPropertyOptional({ description: 'Outputs per image (bulk: 1..100)' })
  @IsOptional()
  @IsString()
  @WholeNumber('Amount', BULK_INPAINT_AMOUNT, { keepText: true })
  amount?: string;

  @ApiPropertyOptional({ description: 'Sent by the spec client; the server uses the image itself' })
  @IsOptional()
  @IsString()
  width?: string;

  @ApiPropertyOptional({ description: 'Sent by the spec client; the server uses the image itself' })
  @IsOptional()
  @IsString()
  height?: string;
}

export class BulkInpaintDto extends InpaintDto {}

export class GenerateImageDto {
  @ApiPropertyOptional({ description: "The signed-in user's name (checked against the session)" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  author?: string;

  @ApiPropertyOptional({ description: 'Short description (age, ethnicity, clothing, setting)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @SafeName()
  title?: string;

  @ApiProperty({ description: 'The prompt built from the chosen tags' })
  @IsString()
  @MaxLength(2000)
  @PromptText()
  prompt!: string;

  @ApiPropertyOptional({
    description: 'The chosen tags (category key -> tag), kept for "Edit and run"; unknown ones are dropped',
    example: { age: '20 year old', haircolor: 'blonde' },
  })
  @IsOptional()
  @IsObject()
  @PromptText()
  tags?: Record<string, unknown>;
}

export class FaceSwapVideoDto extends ToolRequestDto {
  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'SwapVideo0: the video (≤ 30 s)' })
  SwapVideo0?: unknown;

  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'SwapVideo1: the face image' })
  SwapVideo1?: unknown;

  @ApiPropertyOptional({ description: 'Sent by the spec client; ignored (the server measures the video)' })
  @IsOptional()
  @IsString()
  length?: string;

  @ApiPropertyOptional({ description: 'The user attests the consent of the person whose face is used' })
  @IsOptional()
  @IsIn(['true', 'false'])
  consent?: string;

  @ApiPropertyOptional({ description: 'Index of the face of the face image (largest first; default 0)' })
  @IsOptional()
  @IsString()
  sourceFace?: string;

  @ApiPropertyOptional({
    description:
      "Index of the face of the video's first frame to replace and follow (largest first; default 0)",
  })
  @IsOptional()
  @IsString()
  targetFace?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** GET /api/jobs/history: keyset paging (`before`) and filters (JobHistoryQuery). */
export class JobHistoryQueryDto implements JobHistoryQuery {
  @ApiPropertyOptional({ description: 'The `next` cursor of the previous page: jobs older than it' })
  @IsOptional()
  @IsMongoId({ message: 'before must be a cursor from a previous page' })
  before?: string;

  @ApiPropertyOptional({ enum: JobTools })
  @IsOptional()
  @IsIn(JobTools, { message: `tool must be one of ${JobTools.join(', ')}` })
  tool?: JobTool;

  @ApiPropertyOptional({ enum: JobStates })
  @IsOptional()
  @IsIn(JobStates, { message: `state must be one of ${JobStates.join(', ')}` })
  state?: JobState;

  @ApiPropertyOptional({ description: 'Jobs created on or after this day (UTC)', example: '2026-11-01' })
  @IsOptional()
  @Matches(DAY, { message: 'from must be a day, YYYY-MM-DD' })
  @IsDateString({ strict: true }, { message: 'from must be a day, YYYY-MM-DD' })
  from?: string;

  @ApiPropertyOptional({ description: 'Jobs created on or before this day (UTC)', example: '2026-11-30' })
  @IsOptional()
  @Matches(DAY, { message: 'to must be a day, YYYY-MM-DD' })
  @IsDateString({ strict: true }, { message: 'to must be a day, YYYY-MM-DD' })
  to?: string;

  @ApiPropertyOptional({
    default: JOB_HISTORY_PAGE_SIZE.default,
    minimum: 1,
    maximum: JOB_HISTORY_PAGE_SIZE.max,
  })
  @IsOptional()
  @WholeNumber('pageSize', { min: 1, max: JOB_HISTORY_PAGE_SIZE.max })
  pageSize?: number;
}
