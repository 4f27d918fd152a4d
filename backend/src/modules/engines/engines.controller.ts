import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  NotFoundException,
  Post,
  Req,
  UnauthorizedException,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Messages } from '@studio/contracts';
import { verifyReplicateWebhook } from '@studio/inference';
import { ok } from '../../common/api-response';
import type { RawBodyRequest } from '../../common/body-parsing';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Public, Roles } from '../auth';
import { PredictionUpdatesHub } from './prediction-updates';
import { EnginesStatusService } from './engines-status.service';

@ApiTags('operations')
@Controller()
export class EnginesController {
  constructor(
    private readonly status: EnginesStatusService,
    private readonly updates: PredictionUpdatesHub,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('admin/engines')
  @Roles('admin')
  @ApiOperation({ summary: 'Per tool: engine kind, whether its server answers (GPU, free VRAM), queues' })
  @ApiOkResponse({ description: '{message, content: ToolEngineStatus[]}' })
  @ApiForbiddenResponse({ description: 'Admins only' })
  async engines() {
    return ok(await this.status.list());
  }

  /**
   * Replicate's webhook for finished predictions: the signature is checked on the raw body, then
   * the waiting job is woken with the prediction's state (status, output, error, logs), which it
   * trusts as it would Replicate's own answer: only a signed, recent delivery gets here, and a
   * replay within the tolerance carries the same prediction again.
   */
  @Post('replicate/webhook')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: "Replicate's prediction webhook (signature checked on the raw body)" })
  @ApiBadRequestResponse({ description: 'Not a prediction' })
  @ApiUnauthorizedResponse({ description: 'Missing or invalid signature' })
  @ApiNotFoundResponse({ description: 'Replicate webhooks are not configured on this server' })
  async replicateWebhook(
    @Req() req: RawBodyRequest,
    @Body() body: unknown,
    @Headers('webhook-id') id?: string,
    @Headers('webhook-timestamp') timestamp?: string,
    @Headers('webhook-signature') signature?: string,
  ) {
    const secret = this.config.REPLICATE_WEBHOOK_SECRET;
    // Not configured: the route is as good as absent (404), not a server fault (503).
    if (!secret) throw new NotFoundException(Messages.notFound);
    const check = verifyReplicateWebhook(
      secret,
      { id, timestamp, signature },
      req.rawBody ?? Buffer.alloc(0),
    );
    if (!check.ok) throw new UnauthorizedException(check.reason);
    const predictionId = (body as { id?: unknown } | null)?.id;
    if (typeof predictionId !== 'string' || !/^[\w-]{1,64}$/.test(predictionId)) {
      throw new BadRequestException('Not a prediction');
    }
    // Only what the job reads: the body also echoes the inputs (images as data URLs, megabytes).
    const { status, output, error, logs } = body as Record<string, unknown>;
    await this.updates.publish({ id: predictionId, status, output, error, logs });
    return ok('received');
  }
}
