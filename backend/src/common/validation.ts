import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** Which problem to report first: a missing field, then a wrong type, then anything else. */
const PRIORITY = [
  new Set(['isDefined', 'isNotEmpty']),
  new Set(['isString', 'isBoolean', 'isInt', 'isNumber', 'isArray']),
];

function flatten(errors: ValidationError[]): ValidationError[] {
  return errors.flatMap((e) => [e, ...flatten(e.children ?? [])]);
}

/**
 * One validation pipe for the whole API: unknown fields are dropped, and the first problem is
 * reported as one clear sentence. A missing field is reported first, then a wrong type (DTOs give it the spec's
 * 'Missing fields!' where the spec has one).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    exceptionFactory: (errors) => {
      const all = flatten(errors).filter((e) => e.constraints);
      for (const kinds of PRIORITY) {
        for (const e of all) {
          const key = Object.keys(e.constraints!).find((k) => kinds.has(k));
          if (key) return new BadRequestException(e.constraints![key]);
        }
      }
      const first = all[0];
      return new BadRequestException(first ? Object.values(first.constraints!)[0] : 'Invalid request');
    },
  });
}

/** class-transformer helper: trims text fields before they are validated. */
export const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
