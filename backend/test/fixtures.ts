import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sample images and videos libs/inference keeps for its own tests. */
export const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

/** The bytes of one of those samples. */
export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));
