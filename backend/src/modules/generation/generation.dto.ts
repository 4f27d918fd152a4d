import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsMongoId, IsOptional, IsString, MaxLength } from 'class-validator';

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
  amount?: string;
}

export class SuperResolutionDto extends ToolRequestDto {
  @ApiPropertyOptional({ description: 'The image as a data URL (JSON), or a file (multipart)' })
  @IsOptional()
  original?: unknown;
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
}
