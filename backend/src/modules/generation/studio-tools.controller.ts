import { BadRequestException, Body, Controller, HttpCode, Inject, Post, UploadedFiles } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import {
  GENERATED_IMAGE_SIZE,
  JobMessages,
  Messages,
  PromptMessages,
  TAG_CATEGORIES,
  UPLOAD_LIMITS,
  UPLOAD_REQUEST_LIMITS,
  VIDEO_STEP_SECONDS,
  minorReference,
  withAdultAge,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CurrentUser, type AuthUser } from '../auth';
import { ToolEndpoints } from './tool-endpoint.decorator';
import { FaceSwapVideoDto, GenerateImageDto } from './generation.dto';
import { fileNamed, ToolUpload, type UploadedFile } from './generation-uploads';
import { GenerationService, imageInputs } from './generation.service';
import { normalizeImage } from './image-input';
import { measureVideo } from './video-input';

/** Generate from tags and video face swap. */
@ToolEndpoints()
@Controller()
export class StudioToolsController {
  constructor(
    private readonly generation: GenerationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('generateImage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Generate an image from the tag prompt (1 credit; needs a remote engine)' })
  @ApiOkResponse({ description: "{message: 'success' | 'processing', content: {job, url?}}" })
  @ApiResponse({ status: 503, description: "'Image generation is not configured' (nothing charged)" })
  @ApiResponse({ status: 400, description: "'This prompt is not allowed' (points at minors)" })
  async generateImage(@CurrentUser() user: AuthUser, @Body() dto: GenerateImageDto) {
    const prompt = dto.prompt.trim();
    if (!prompt) throw new BadRequestException(PromptMessages.promptRequired);
    if (minorReference(prompt) || minorReference(dto.title ?? '')) {
      throw new BadRequestException(PromptMessages.refused);
    }
    const job = await this.generation.submit(user, {
      tool: 'generate',
      author: dto.author,
      inputs: [],
      units: 1,
      params: {
        prompt: withAdultAge(prompt),
        width: GENERATED_IMAGE_SIZE,
        height: GENERATED_IMAGE_SIZE,
        ...knownTags(dto.tags),
      },
    });
    return this.generation.answer(user, job, this.config.JOB_WAIT_MS);
  }

  @Post('faceSwapVideo')
  @HttpCode(200)
  @ToolUpload({
    tool: 'faceSwapVideo',
    fileField: (name) => name === 'SwapVideo0' || name === 'SwapVideo1',
    maxFiles: 2,
    // The face image is held to the image limit when it is read (normalizeImage).
    fileBytes: UPLOAD_LIMITS.videoBytes,
    fileTooLarge: JobMessages.videoTooLarge,
    requestBytes: UPLOAD_REQUEST_LIMITS.videoRequestBytes,
    flag: { name: 'videoFaceSwap', offMessage: JobMessages.videoSwapOff },
    minUnits: VIDEO_STEP_SECONDS,
  })
  @ApiOperation({
    summary: 'Video face swap (beta, behind a feature flag): the face of SwapVideo1 onto SwapVideo0',
    description:
      'The duration is measured with ffprobe; `length` is ignored. Cost: floor(5 × 0.2 × ceil(d / 0.2)).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: FaceSwapVideoDto })
  @ApiOkResponse({ description: "{message: 'processing', content: {job}}" })
  @ApiResponse({ status: 403, description: 'The feature is turned off' })
  async faceSwapVideo(
    @CurrentUser() user: AuthUser,
    @Body() dto: FaceSwapVideoDto,
    @UploadedFiles() files: UploadedFile[] = [],
  ) {
    const video = fileNamed(files, 'SwapVideo0');
    const face = fileNamed(files, 'SwapVideo1');
    if (!video || !face) throw new BadRequestException(JobMessages.videoRequired);
    if (!dto.folder) throw new BadRequestException(Messages.selectFolder);
    if (dto.consent !== 'true') throw new BadRequestException(JobMessages.consentRequired);
    const image = await normalizeImage(face);
    const measured = await measureVideo(video);
    const job = await this.generation.submit(user, {
      tool: 'faceSwapVideo',
      author: dto.author,
      folderId: dto.folder,
      inputs: [{ data: measured.data, extension: 'mp4' }, ...imageInputs([image])],
      units: measured.durationSeconds,
      params: { durationSeconds: measured.durationSeconds },
    });
    return this.generation.answer(user, job, 0);
  }
}

/** The chosen tags that are tags of the Generate screen (anything else is dropped), if any. */
function knownTags(tags: Record<string, unknown> | undefined): { tags?: Record<string, string> } {
  const known = Object.fromEntries(
    TAG_CATEGORIES.flatMap(({ key, tags: allowed }) => {
      const value = tags?.[key];
      return typeof value === 'string' && allowed.includes(value) ? [[key, value]] : [];
    }),
  );
  return Object.keys(known).length > 0 ? { tags: known } : {};
}
