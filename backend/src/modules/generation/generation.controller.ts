import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  UploadedFiles,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import {
  CLONE_AMOUNT,
  FACE_SWAP_LIMITS,
  FaceSwapMessages,
  JobFields,
  JobMessages,
  Messages,
  superResolutionUnits,
  wholeNumberMessage,
  type JobView,
  type SuperResolutionScale,
} from '@studio/contracts';
import { ok } from '../../common/api-response';
import { requireWholeNumber } from '../../common/validation';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CurrentUser, type AuthUser, KeyScope } from '../auth';
import { ToolEndpoints } from './tool-endpoint.decorator';
import { JobRef, JobRefHeader } from './job-ref.decorator';
import { FaceSwapDto, GenerateNoiseDto, JobHistoryQueryDto, SuperResolutionDto } from './generation.dto';
import { FaceSwapChecks } from './face-swap-check';
import { JobHistory } from './job-history.service';
import { GenerationService, imageInputs } from './generation.service';
import { fileNamed, imageUpload, ToolUpload, type UploadedFile } from './generation-uploads';
import { checkImages, normalizeImage } from './image-input';

const CLONE_FIELD = new RegExp(`^${JobFields.clonePrefix}(\\d+)$`);
const isCloneFile = (name: string) => name === 'original' || CLONE_FIELD.test(name);
const isSwapFile = (name: string) => name === JobFields.swapFace || name === JobFields.swapTarget;

/**
 * The spec's tool endpoints. Each one checks its input, submits one job and waits a little for it
 * (JOB_WAIT_MS): 'success' when it finished meanwhile, 'processing' otherwise.
 */
@ToolEndpoints()
@Controller()
export class GenerationController {
  constructor(
    private readonly generation: GenerationService,
    private readonly history: JobHistory,
    private readonly checks: FaceSwapChecks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('generateNoise')
  @KeyScope('tools')
  @HttpCode(200)
  @ToolUpload(imageUpload('clone', CLONE_AMOUNT.max + 1, isCloneFile, isCloneFile))
  @ApiOperation({
    summary: 'Clones: noise-altered copies of an image',
    description:
      "Send `original` and `amount` (the server makes the copies), or the spec's Clone0..CloneN-1 files (one copy each).",
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: GenerateNoiseDto })
  @ApiOkResponse({ description: "{message: 'success' | 'processing', content: {job, url?}}" })
  @JobRefHeader()
  async generateNoise(
    @CurrentUser() user: AuthUser,
    @Body() dto: GenerateNoiseDto,
    @UploadedFiles() files: UploadedFile[] = [],
    @JobRef() ref?: string,
  ) {
    const original = fileNamed(files, 'original');
    const copies = files
      .map((f) => ({ file: f, index: CLONE_FIELD.exec(f.fieldname)?.[1] }))
      .filter((c) => c.index !== undefined)
      .sort((a, b) => Number(a.index) - Number(b.index))
      .map((c) => c.file);
    let job: JobView;
    if (original) {
      const amount = requireWholeNumber('Amount', dto.amount ?? 1, CLONE_AMOUNT);
      const image = await normalizeImage(original);
      job = await this.generation.submit(user, {
        tool: 'clone',
        author: dto.author,
        folderId: dto.folder || undefined,
        inputs: imageInputs([image]),
        units: amount,
        params: { amount },
        ref,
      });
    } else {
      if (copies.length === 0) throw new BadRequestException(JobMessages.imageRequired);
      if (copies.length > CLONE_AMOUNT.max) throw new BadRequestException(amountMessage);
      await checkImages(...copies);
      const images = [];
      for (const copy of copies) images.push(await normalizeImage(copy));
      job = await this.generation.submit(user, {
        tool: 'clone',
        author: dto.author,
        folderId: dto.folder || undefined,
        inputs: imageInputs(images),
        units: images.length,
        params: { amount: 1 },
        ref,
      });
    }
    return this.generation.answer(user, job, this.config.JOB_WAIT_MS);
  }

  @Post('superResolution')
  @KeyScope('tools')
  @HttpCode(200)
  @ToolUpload(imageUpload('superResolution', 1, (name) => name === 'original'))
  @ApiOperation({
    summary: 'Super resolution (2x or 4x) of an image',
    description:
      'JSON {original: data URL, author, scale?} as the spec sends it, or multipart with an `original` file. ' +
      'The price is per started output megapixel (superResolutionUnits in the contracts).',
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({ type: SuperResolutionDto })
  @ApiOkResponse({ description: "{message: 'success' | 'processing', content: {job, url?}}" })
  @JobRefHeader()
  async superResolution(
    @CurrentUser() user: AuthUser,
    @Body() dto: SuperResolutionDto,
    @UploadedFiles() files: UploadedFile[] = [],
    @JobRef() ref?: string,
  ) {
    const upload = fileNamed(files, 'original');
    const image = await normalizeImage(upload);
    const scale = Number(dto.scale ?? 2) as SuperResolutionScale;
    const job = await this.generation.submit(user, {
      tool: 'superResolution',
      author: dto.author,
      folderId: dto.folder || undefined,
      inputs: imageInputs([image]),
      units: superResolutionUnits(image.width, image.height, scale),
      params: { scale },
      ref,
    });
    return this.generation.answer(user, job, this.config.JOB_WAIT_MS);
  }

  @Post('faceSwap/check')
  @KeyScope('tools')
  @HttpCode(200)
  // Free: no price to cover before the body (minUnits 0); the uploads are capped as the swap's.
  @ToolUpload({ ...imageUpload('faceSwap', 2, isSwapFile), minUnits: 0 })
  @ApiOperation({
    summary: 'Face swap check (free): the faces found in Swap0 and Swap1, the choice, warnings and the price',
    description:
      'The same upload as POST /api/faceSwap, with the optional choice `sourceFace` (index) and ' +
      "`targetFaces` ('0,2' or 'all'). Nothing is stored or charged. Boxes are in pixels of the image " +
      'as analysed (`width` x `height`), faces largest first. A swap with the same images and choice ' +
      'is accepted exactly when `ok` is true.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: FaceSwapDto })
  @ApiOkResponse({ description: '{message, content: FaceSwapCheck}' })
  async faceSwapCheck(
    @CurrentUser() user: AuthUser,
    @Body() dto: FaceSwapDto,
    @UploadedFiles() files: UploadedFile[] = [],
  ) {
    const { source, target } = await swapImages(files);
    await this.checks.content(user, source, target);
    return ok(await this.checks.check(source, target, dto));
  }

  @Post('faceSwap')
  @KeyScope('tools')
  @HttpCode(200)
  @ToolUpload(imageUpload('faceSwap', 2, isSwapFile))
  @ApiOperation({
    summary: 'Face swap: the face of Swap0 onto the person in Swap1',
    description:
      'Requires `consent=true`: the user attests the consent of the person whose face is used. ' +
      "Optional `sourceFace` (index) and `targetFaces` ('0,2' or 'all'), as POST /api/faceSwap/check " +
      'reports them; with the local engine the request is checked again first and refused (400, ' +
      'nothing charged) unless the check passes.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: FaceSwapDto })
  @ApiOkResponse({ description: "{message: 'processing', content: {job}}" })
  async faceSwap(
    @CurrentUser() user: AuthUser,
    @Body() dto: FaceSwapDto,
    @UploadedFiles() files: UploadedFile[] = [],
  ) {
    if (!fileNamed(files, JobFields.swapFace) || !fileNamed(files, JobFields.swapTarget)) {
      throw new BadRequestException(JobMessages.faceImageRequired);
    }
    if (!dto.folder) throw new BadRequestException(Messages.selectFolder);
    if (dto.consent !== 'true') throw new BadRequestException(JobMessages.consentRequired);
    const { source, target } = await swapImages(files);
    const inputChecks = await this.checks.content(user, source, target);
    let choice: { sourceFace?: number; targetFaces?: number[] } = {};
    if (this.checks.enforced()) {
      const checked = await this.checks.check(source, target, dto);
      if (!checked.ok) throw new BadRequestException(checked.problems[0]);
      choice = { sourceFace: checked.sourceFace!, targetFaces: checked.targetFaces };
    } else if (dto.sourceFace !== undefined || dto.targetFaces !== undefined) {
      // A remote engine swaps the face it finds itself: a choice it cannot honour is refused.
      throw new BadRequestException(FaceSwapMessages.choiceUnsupported);
    }
    const job = await this.generation.submit(user, {
      tool: 'faceSwap',
      author: dto.author,
      folderId: dto.folder,
      inputs: imageInputs([source, target]),
      inputChecks,
      units: 1,
      params: choice,
    });
    return this.generation.answer(user, job, 0);
  }

  @Get('jobs')
  @KeyScope('read')
  @SkipThrottle({ jobs: true })
  @ApiOperation({ summary: "The caller's recent jobs, newest first (job tray)" })
  @ApiOkResponse({ description: '{message, content: JobView[]}' })
  async recent(@CurrentUser() user: AuthUser) {
    return ok(await this.generation.withPlaces(await this.generation.recent(user)));
  }

  // Before jobs/:id, which would take 'history' for an id.
  @Get('jobs/history')
  @KeyScope('read')
  @SkipThrottle({ jobs: true })
  @ApiOperation({
    summary: "All of the caller's jobs, newest first, with filters (the jobs page)",
    description:
      'Keyset paging: the first page has no `before`; pass its `next` as `before` for the next one. ' +
      'No total is given.',
  })
  @ApiOkResponse({ description: '{message, content: {items: JobView[], pageSize, next: cursor | null}}' })
  @ApiBadRequestResponse({ description: 'A bad cursor, tool, state, day or page size' })
  async jobHistory(@CurrentUser() user: AuthUser, @Query() query: JobHistoryQueryDto) {
    const page = await this.history.page(user, query);
    return ok({ ...page, items: await this.generation.withPlaces(page.items) });
  }

  @Get('jobs/:id')
  @KeyScope('read')
  @SkipThrottle({ jobs: true })
  @ApiOperation({ summary: "One of the caller's jobs: state, progress, results" })
  @ApiOkResponse({ description: '{message, content: JobView}' })
  @ApiNotFoundResponse({ description: "'Job not found' (also for another user's job)" })
  async job(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    const [job] = await this.generation.withPlaces([await this.generation.get(user, id)]);
    return ok(job);
  }
}

const amountMessage = wholeNumberMessage('Amount', CLONE_AMOUNT);

/** The face image within 1024 px, the target at up to the face swap's own limit (its full size). */
async function swapImages(files: UploadedFile[]) {
  const face = fileNamed(files, JobFields.swapFace);
  const target = fileNamed(files, JobFields.swapTarget);
  if (!face || !target) throw new BadRequestException(JobMessages.faceImageRequired);
  await checkImages(face, target);
  return {
    source: await normalizeImage(face),
    target: await normalizeImage(target, FACE_SWAP_LIMITS.targetSideMax),
  };
}
