import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { UPLOAD_LIMITS } from '@studio/contracts';

/** The parts of a multer file the tool controllers read. */
export interface UploadedFile {
  fieldname: string;
  buffer: Buffer;
}

/** Multipart parsing for tool requests: file count and size bounded before anything is read. */
export const toolUploads = (maxFiles: number, fileBytes: number = UPLOAD_LIMITS.imageBytes) =>
  AnyFilesInterceptor({
    limits: { fileSize: fileBytes, files: maxFiles, fields: 20, fieldSize: 64 * 1024 },
  });

export const fileNamed = (files: UploadedFile[], name: string) => files.find((f) => f.fieldname === name);
