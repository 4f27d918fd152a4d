import { ForbiddenException } from '@nestjs/common';
import { AGE_CHECK_PATH, SAFETY_REASONS, type SafetyReason } from '@studio/contracts';

/** A refusal with its reason code in plain words, and for an age refusal the link to the check. */
export class SafetyRefusal extends ForbiddenException {
  constructor(readonly reason: SafetyReason) {
    super({
      message: SAFETY_REASONS[reason],
      extra: { reason, ...(reason === 'age_not_assured' ? { link: AGE_CHECK_PATH } : {}) },
    });
  }
}
