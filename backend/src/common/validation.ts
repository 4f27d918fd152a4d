import { applyDecorators, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import {
  hasControlCharacter,
  Messages,
  nameProblem,
  parseWholeNumber,
  wholeNumberMessage,
  type WholeNumberRange,
} from '@studio/contracts';

/** Which problem to report first: a missing field, then a wrong type, then anything else. */
const PRIORITY = [
  new Set(['isDefined', 'isNotEmpty']),
  new Set(['isString', 'isBoolean', 'isInt', 'isNumber', 'isArray', 'isWholeNumber']),
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

/**
 * A whole-number field, strictly: plain decimal text (query strings, multipart fields) or a JSON
 * safe integer, in the range; '1e2', '0x10', ' 5 ', '+3' are refused with one clear message.
 * Text becomes a number unless `keepText` (for fields a controller still reads as text).
 */
export function WholeNumber(field: string, range: WholeNumberRange, options: { keepText?: boolean } = {}) {
  const message = wholeNumberMessage(field, range);
  const check = ValidateBy(
    {
      name: 'isWholeNumber',
      validator: { validate: (value) => parseWholeNumber(value, range) !== null },
    },
    { message },
  );
  if (options.keepText) return check;
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => parseWholeNumber(value, range) ?? value),
    check,
  );
}

/**
 * The whole number a value holds (the same strict rule as WholeNumber), or a 400 with the field's
 * one message: for services and controllers that read a number the DTO kept as text.
 */
export function requireWholeNumber(field: string, value: unknown, range: WholeNumberRange): number {
  const n = parseWholeNumber(value, range);
  if (n === null) throw new BadRequestException(wholeNumberMessage(field, range));
  return n;
}

/**
 * A name or title a person wrote (folder titles, batch names, reasons...): no control,
 * text-direction or invisible characters (nameProblem in libs/contracts). Other types pass here
 * and are refused by the field's IsString.
 */
export function SafeName() {
  return ValidateBy(
    {
      name: 'isSafeName',
      validator: { validate: (value) => typeof value !== 'string' || nameProblem(value) === null },
    },
    { message: Messages.unsafeCharacters },
  );
}

/**
 * Prompt text, or an object of tag texts: no control characters (hasControlCharacter in
 * libs/contracts). Other types pass here and are refused by the field's own type check.
 */
export function PromptText() {
  const clean = (value: unknown): boolean =>
    typeof value === 'string'
      ? !hasControlCharacter(value)
      : value === null || typeof value !== 'object' || Object.values(value).every(clean);
  return ValidateBy(
    { name: 'isPromptText', validator: { validate: (value) => clean(value) } },
    { message: Messages.promptControlCharacters },
  );
}
