import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import { PASSWORD_MIN_SCORE } from '@studio/contracts';

let estimator: ZxcvbnFactory | undefined;

/**
 * zxcvbn-ts (the maintained TypeScript port of Dropbox's zxcvbn): estimates the guesses a
 * password needs from common passwords, names, keyboard patterns, dates and repeats, plus the
 * person's own name and address. The dictionaries load on first use, not at boot.
 */
export async function isStrongEnough(password: string, personal: string[]): Promise<boolean> {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  const inputs = personal
    .flatMap((value) => [value, ...value.toLowerCase().split(/[@._+-]+/)])
    .filter((value) => value.length >= 3);
  const result = await estimator.checkAsync(password, inputs);
  return result.score >= PASSWORD_MIN_SCORE;
}
