import type { Rule } from 'antd/es/form';
import { PASSWORD_MIN } from '@studio/contracts';

/** The new-password field's rule, on the server's own minimum (libs/contracts). */
export const NEW_PASSWORD_RULE: Rule = {
  required: true,
  min: PASSWORD_MIN,
  message: `At least ${PASSWORD_MIN} characters`,
};
