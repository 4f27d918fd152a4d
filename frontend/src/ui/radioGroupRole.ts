/**
 * Spread on an antd Radio.Group: {...RADIO_GROUP_ROLE}. The group is a plain div, so the
 * aria-required a required Form.Item gives it, or an aria-label, is an attribute ARIA does not allow
 * there (axe aria-allowed-attr); with this role both are allowed and screen readers announce the
 * group. antd passes role on (rc-util pickAttrs) though its props type does not list it.
 */
export const RADIO_GROUP_ROLE = { role: 'radiogroup' } as const;
