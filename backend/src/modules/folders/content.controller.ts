import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ContentMessages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles, type AuthUser, RateLimit, SameOriginGuard, KeyScope } from '../auth';
import { DownloadContentDto, RenameFolderDto, TakedownDto } from './folders.dto';
import { FoldersService, RangeNotSatisfiable } from './folders.service';
import { Idempotent } from '../../common/idempotency';

@ApiTags('folders')
@ApiNotFoundResponse({ description: "Not found, or not the caller's" })
@Controller()
export class ContentController {
  constructor(private readonly folders: FoldersService) {}

  @Get('getBulkInpaints/:id')
  @KeyScope('read')
  @ApiOperation({ summary: "A folder's inpaint entries and items (owner only)" })
  @ApiOkResponse({ description: '{message, content: {inpaint: [...], inpaints: [...]}}' })
  async contents(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    return ok(await this.folders.contents(user, id));
  }

  @Patch('folders/:id')
  @Idempotent()
  @KeyScope('folders')
  @ApiOperation({ summary: 'Rename a folder' })
  async rename(@CurrentUser() user: AuthUser, @Param('id') id: string, @Body() dto: RenameFolderDto) {
    return ok(await this.folders.rename(user, id, dto.title));
  }

  @Delete('folders/:id')
  @Idempotent()
  @KeyScope('folders')
  @ApiOperation({ summary: 'Delete an empty folder (409 when it has content)' })
  async removeFolder(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    await this.folders.remove(user, id);
    return ok(ContentMessages.deleted);
  }

  @Get('deleteGen/:itemId')
  @KeyScope('folders')
  @UseGuards(SameOriginGuard)
  @ApiOperation({ summary: "Delete an item (the spec's GET form; same as DELETE /api/content/{itemId})" })
  @ApiOkResponse({ description: "{message: 'success', content: 'Deleted!'}" })
  async deleteGen(@CurrentUser() user: AuthUser, @Param('itemId') itemId: string) {
    await this.folders.deleteItem(user, itemId);
    return ok(ContentMessages.deleted);
  }

  @Delete('content/:itemId')
  @Idempotent()
  @KeyScope('folders')
  @ApiOperation({ summary: 'Delete an item and its file' })
  async deleteItem(@CurrentUser() user: AuthUser, @Param('itemId') itemId: string) {
    await this.folders.deleteItem(user, itemId);
    return ok(ContentMessages.deleted);
  }

  @Get('content/:file')
  @KeyScope('read')
  @ApiOperation({
    summary: "An item's file, inline (owner only); `file` is `<itemId>.<ext>`",
    description:
      'Answers a single `Range: bytes=...` with 206 and Content-Range (video seeking), an ' +
      'unsatisfiable one with 416 and `Content-Range: bytes */<size>`; other ranges get the whole file.',
  })
  @ApiHeader({ name: 'Range', required: false, description: 'bytes=<start>-<end>' })
  @ApiResponse({ status: 206, description: 'The requested bytes' })
  @ApiResponse({ status: 416, description: 'The range lies outside the file' })
  async serve(
    @CurrentUser() user: AuthUser,
    @Param('file') file: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    // Without validators to compare, an If-Range can never be known to match: send it all.
    const ranged = req.headers.range !== undefined && req.headers['if-range'] === undefined;
    res.setHeader('Accept-Ranges', 'bytes');
    try {
      const object = await this.folders.serve(
        user,
        file.split('.')[0],
        // Not combined: `bytes=0-1,2-3` is several ranges, which get the whole file (docs/folders.md).
        ranged ? (size) => req.range(size) : undefined,
      );
      res.setHeader('Content-Type', object.contentType);
      res.setHeader('Content-Length', String(object.size));
      res.setHeader('Cache-Control', 'private, max-age=3600');
      if (object.range) {
        const { start, end, total } = object.range;
        res.status(206).setHeader('Content-Range', `bytes ${start}-${end}/${total}`);
      }
      object.stream.pipe(res);
    } catch (err) {
      if (err instanceof RangeNotSatisfiable) res.setHeader('Content-Range', `bytes */${err.total}`);
      throw err;
    }
  }

  @Post('downloadContent')
  @KeyScope('read')
  @HttpCode(200)
  @RateLimit('downloads')
  @ApiOperation({ summary: 'Download one of your items as an attachment named after its title' })
  async download(@CurrentUser() user: AuthUser, @Body() dto: DownloadContentDto, @Res() res: Response) {
    const object = await this.folders.download(user, dto.url, dto.title);
    res.attachment(object.filename);
    res.setHeader('Content-Type', object.contentType);
    res.setHeader('Content-Length', String(object.size));
    object.stream.pipe(res);
  }

  @Post('admin/content/:itemId/takedown')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({ summary: "Take down any user's item: hide it or delete its file, with a reason (admins)" })
  @ApiOkResponse({ description: '{message, content: the item with its takedown}' })
  @ApiNotFoundResponse({ description: "'Item not found'" })
  async takeDown(@CurrentUser() admin: AuthUser, @Param('itemId') itemId: string, @Body() dto: TakedownDto) {
    return ok(await this.folders.takeDown(admin, itemId, dto));
  }
}
