import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { FOLDER_TITLE_MAX, Messages } from '@studio/contracts';
import { SafeName, trimmed } from '../../common/validation';

export class MakeFolderDto {
  @ApiPropertyOptional({ description: "The spec's client sends its user name; it must be the session's" })
  @IsOptional()
  @IsString({ message: 'author must be text' })
  author?: string;

  @ApiProperty({ example: 'Model #1', maxLength: FOLDER_TITLE_MAX })
  @Transform(trimmed)
  @IsNotEmpty({ message: Messages.folderNameRequired })
  @IsString({ message: 'title must be text' })
  @MaxLength(FOLDER_TITLE_MAX, { message: `Folder name must be at most ${FOLDER_TITLE_MAX} characters` })
  @SafeName()
  title!: string;
}

/** Renaming takes the same title rules as creating. */
export class RenameFolderDto extends PickType(MakeFolderDto, ['title'] as const) {}

export class DownloadContentDto {
  @ApiProperty({
    example: '/api/content/6650f0c2a1b2c3d4e5f60718.png',
    description: 'The url of one of your items',
  })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'url must be text' })
  @MaxLength(500)
  url!: string;

  @ApiPropertyOptional({ description: 'Name for the downloaded file' })
  @IsOptional()
  @IsString({ message: 'title must be text' })
  @MaxLength(200)
  @SafeName()
  title?: string;
}

export class TakedownDto {
  @ApiProperty({ description: 'Why the item is taken down (the owner reads it)', maxLength: 500 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  @SafeName()
  reason!: string;

  @ApiProperty({ enum: ['hide', 'delete'] })
  @IsIn(['hide', 'delete'])
  mode!: 'hide' | 'delete';
}
