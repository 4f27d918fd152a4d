import { BadRequestException, Body, Controller, HttpCode, Inject, Post, UploadedFiles } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import {
  FaceSwapMessages,
  FaceSwapVideoFields,
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
import { ok } from '../../common/api-response';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CurrentUser, type AuthUser, KeyScope } from '../auth';
import { ToolEndpoints } from './tool-endpoint.decorator';
import { JobRef, JobRefHeader } from './job-ref.decorator';
import { FaceSwapChecks } from './face-swap-check';
import { FaceSwapVideoDto, GenerateImageDto } from './generation.dto';
import { fileNamed, ToolUpload, type UploadedFile } from './generation-uploads';
import { GenerationService, imageInputs } from './generation.service';
import { normalizeImage } from './image-input';
import { measureVideo, probeUploadedVideo } from './video-input';
import { Idempotent } from '../../common/idempotency';

/** The video swap's upload (and its check's): the video and the face image, behind the feature flag. */
const videoUpload = {
  tool: 'faceSwapVideo',
  fileField: (name: string) => name === FaceSwapVideoFields.video || name === FaceSwapVideoFields.face,
  maxFiles: 2,
  // The face image is held to the image limit when it is read (normalizeImage).
  fileBytes: UPLOAD_LIMITS.videoBytes,
  fileTooLarge: JobMessages.videoTooLarge,
  requestBytes: UPLOAD_REQUEST_LIMITS.videoRequestBytes,
  flag: { name: 'videoFaceSwap', offMessage: JobMessages.videoSwapOff },
} as const;

/** Generate from tags and video face swap. */
@ToolEndpoints()
@Controller()
export class StudioToolsController {
  constructor(
    private readonly generation: GenerationService,
    private readonly checks: FaceSwapChecks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('generateImage')
  @Idempotent()
  @KeyScope('tools')
  @HttpCode(200)
  @ApiOperation({ summary: 'Generate an image from the tag prompt (1 credit; needs a remote engine)' })
  @ApiOkResponse({ description: "{message: 'success' | 'processing', content: {job, url?}}" })
  @ApiResponse({ status: 503, description: "'Image generation is not configured' (nothing charged)" })
  @ApiResponse({ status: 400, description: "'This prompt is not allowed' (points at minors)" })
  @JobRefHeader()
  async generateImage(@CurrentUser() user: AuthUser, @Body() dto: GenerateImageDto, @JobRef() ref?: string) {
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
      ref,
      params: {
        prompt: withAdultAge(prompt),
        width: GENERATED_IMAGE_SIZE,
        height: GENERATED_IMAGE_SIZE,
        ...knownTags(dto.tags),
      },
    });
    return this.generation.answer(user, job, this.config.JOB_WAIT_MS);
  }

  @Post('faceSwapVideo/check')
  @KeyScope('tools')
  @HttpCode(200)
  // Free: no price to cover before the body (minUnits 0); the uploads are capped as the swap's.
  @ToolUpload({ ...videoUpload, minUnits: 0 })
  @ApiOperation({
    summary:
      "Video face swap check (free): the faces of SwapVideo1 and of the video's first frame, the choice, warnings and the price",
    description:
      'The same upload as POST /api/faceSwapVideo, with the optional choice `sourceFace` and `targetFace` ' +
      '(indexes, largest first). Nothing is stored or charged. `frame` is the first frame at the size the ' +
      'swap processes frames (boxes in its pixels), `frameImage` that frame as a JPEG data URL. A swap ' +
      'with the same files and choice is accepted exactly when `ok` is true; the chosen face is then ' +
      'followed through the clip.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: FaceSwapVideoDto })
  @ApiOkResponse({ description: '{message, content: FaceSwapVideoCheck}' })
  @ApiResponse({ status: 403, description: 'The feature is turned off' })
  async faceSwapVideoCheck(
    @CurrentUser() user: AuthUser,
    @Body() dto: FaceSwapVideoDto,
    @UploadedFiles() files: UploadedFile[] = [],
  ) {
    const video = fileNamed(files, FaceSwapVideoFields.video);
    const face = fileNamed(files, FaceSwapVideoFields.face);
    if (!video || !face) throw new BadRequestException(JobMessages.videoRequired);
    const image = await normalizeImage(face);
    // Only probed: the check needs the file's first frame, not its bytes in memory.
    const probed = await probeUploadedVideo(video);
    await this.checks.videoContent(user, image, video.path, probed);
    return ok(await this.checks.checkVideo(image, video.path, probed, dto));
  }

  @Post('faceSwapVideo')
  @KeyScope('tools')
  @HttpCode(200)
  @ToolUpload({ ...videoUpload, minUnits: VIDEO_STEP_SECONDS })
  @ApiOperation({
    summary: 'Video face swap (beta, behind a feature flag): the face of SwapVideo1 onto SwapVideo0',
    description:
      'The duration is measured with ffprobe; `length` is ignored. Cost: floor(5 × 0.2 × ceil(d / 0.2)). ' +
      'Optional `sourceFace` and `targetFace` (indexes, as POST /api/faceSwapVideo/check reports them): ' +
      'the face of the first frame to replace and follow. With the local engine the request is checked ' +
      'first and refused (400, nothing charged) unless the check passes; a remote engine refuses a choice.',
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
    const video = fileNamed(files, FaceSwapVideoFields.video);
    const face = fileNamed(files, FaceSwapVideoFields.face);
    if (!video || !face) throw new BadRequestException(JobMessages.videoRequired);
    if (!dto.folder) throw new BadRequestException(Messages.selectFolder);
    if (dto.consent !== 'true') throw new BadRequestException(JobMessages.consentRequired);
    const image = await normalizeImage(face);
    const measured = await measureVideo(video);
    const inputChecks = await this.checks.videoContent(user, image, video.path, measured);
    let choice: { sourceFace?: number; targetFace?: number } = {};
    if (this.checks.videoEnforced()) {
      const checked = await this.checks.checkVideo(image, video.path, measured, dto);
      if (!checked.ok) throw new BadRequestException(checked.problems[0]);
      choice = { sourceFace: checked.sourceFace!, targetFace: checked.targetFace! };
    } else if (dto.sourceFace !== undefined || dto.targetFace !== undefined) {
      // A remote engine swaps the face it finds itself: a choice it cannot honour is refused.
      throw new BadRequestException(FaceSwapMessages.choiceUnsupported);
    }
    const job = await this.generation.submit(user, {
      tool: 'faceSwapVideo',
      author: dto.author,
      folderId: dto.folder,
      inputs: [{ data: measured.data, extension: 'mp4' }, ...imageInputs([image])],
      inputChecks,
      units: measured.durationSeconds,
      params: { durationSeconds: measured.durationSeconds, ...choice },
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
