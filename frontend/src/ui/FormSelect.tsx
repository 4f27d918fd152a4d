import { Select, type SelectProps } from 'antd';
import { useEffect, useRef, type ComponentRef } from 'react';

/**
 * antd's Select for a required Form.Item. The Form.Item hands its control `aria-required`, and
 * rc-select copies it to its outer div as well, where ARIA does not allow it (axe
 * aria-allowed-attr, critical); that div is not what a screen reader announces anyway. Here it
 * goes to the search input only, the element with role="combobox".
 */
export function FormSelect(props: SelectProps & { 'aria-required'?: boolean | 'true' | 'false' }) {
  const { 'aria-required': required, ...rest } = props;
  const ref = useRef<ComponentRef<typeof Select>>(null);
  useEffect(() => {
    const input = ref.current?.nativeElement?.querySelector('input[role="combobox"]');
    if (!input) return;
    if (required === true || required === 'true') input.setAttribute('aria-required', 'true');
    else input.removeAttribute('aria-required');
  }, [required]);
  return <Select ref={ref} {...rest} />;
}
