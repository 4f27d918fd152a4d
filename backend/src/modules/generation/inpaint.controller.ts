import { BadRequestException, Body, Controller, HttpCode, Inject, Post, UploadedFiles } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { BULK_INPAINT_AMOUNT, JobMessages, Messages, UPLOAD_LIMITS } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CurrentUser, type AuthUser, KeyScope } from '../auth';
import { ToolEndpoints } from './tool-endpoint.decorator';
import { BulkInpaintDto, InpaintDto } from './generation.dto';
import { fileNamed, imageUpload, ToolUpload, type UploadedFile } from './generation-uploads';
import { InpaintService } from './inpaint.service';
import { JobRef, JobRefHeader } from './job-ref.decorator';

/** Magic Brush: one image, or a bulk batch of images with the same mask and prompt. */
@ToolEndpoints()
@Controller()
export class InpaintController {
  constructor(
    private readonly inpaint: InpaintService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('inpaintImage')
  @KeyScope('tools')
  @HttpCode(200)
  @ToolUpload(imageUpload('inpaint', 2, (name) => name === 'original' || name === 'mask'))
  @ApiOperation({ summary: 'Magic Brush: repaint the masked part of one image (1 credit)' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: InpaintDto })
  @ApiOkResponse({ description: "{message: 'success' | 'processing', content: {job, url?}}" })
  @JobRefHeader()
  async inpaintImage(
    @CurrentUser() user: AuthUser,
    @Body() dto: InpaintDto,
    @UploadedFiles() files: UploadedFile[] = [],
    @JobRef() ref?: string,
  ) {
    return this.inpaint.single(
      user,
      { ...dto, original: fileNamed(files, 'original'), mask: fileNamed(files, 'mask') },
      this.config.JOB_WAIT_MS,
      ref,
    );
  }

  @Post('bulkInpaintImage')
  @KeyScope('tools')
  @HttpCode(200)
  // The spec: every file other than original and mask is an extra image, whatever its name.
  @ToolUpload(
    imageUpload(
      'inpaint',
      2 + UPLOAD_LIMITS.bulkExtraImages,
      () => true,
      (name) => name !== 'mask',
    ),
  )
  @ApiOperation({
    summary: 'Magic Brush in bulk: the same mask and prompt on the original and extra images',
    description: `amount (${BULK_INPAINT_AMOUNT.min}..${BULK_INPAINT_AMOUNT.max}) outputs per image; every field other than original and mask is an extra image. Cost: amount × images.`,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: BulkInpaintDto })
  @ApiOkResponse({ description: "{message: 'processing', content: {batch, jobs}}" })
  async bulkInpaintImage(
    @CurrentUser() user: AuthUser,
    @Body() dto: BulkInpaintDto,
    @UploadedFiles() files: UploadedFile[] = [],
  ) {
    if (!dto.folder) throw new BadRequestException(Messages.selectFolder);
    const extras = files.filter((f) => f.fieldname !== 'original' && f.fieldname !== 'mask');
    if (extras.length > UPLOAD_LIMITS.bulkExtraImages)
      throw new BadRequestException(JobMessages.tooManyImages);
    const result = await this.inpaint.bulk(user, {
      ...dto,
      folder: dto.folder,
      original: fileNamed(files, 'original'),
      mask: fileNamed(files, 'mask'),
      extras,
    });
    return { message: 'processing', content: result };
  }
}
