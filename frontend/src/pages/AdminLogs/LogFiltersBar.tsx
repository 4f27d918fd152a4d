import { AuditCategory } from '@studio/contracts';
import { DatePicker, Input, Select, Space } from 'antd';
import type { LogFilters } from './useAuditLog';

const CATEGORY_OPTIONS = Object.values(AuditCategory).map((category) => ({
  value: category,
  label: category,
}));

/** Category, user name and date range; each change goes to the server as a filter. */
export function LogFiltersBar({
  value,
  onChange,
}: {
  value: LogFilters;
  onChange(filters: LogFilters): void;
}) {
  return (
    <Space wrap>
      <Select
        aria-label="Category"
        placeholder="All categories"
        allowClear
        style={{ width: 180 }}
        options={CATEGORY_OPTIONS}
        value={value.category}
        onChange={(category?: string) => onChange({ ...value, category: category || undefined })}
      />
      <Input.Search
        aria-label="Username"
        placeholder="Username"
        allowClear
        style={{ width: 220 }}
        defaultValue={value.user}
        onSearch={(user) => onChange({ ...value, user: user.trim() || undefined })}
      />
      <DatePicker.RangePicker
        showTime
        allowEmpty={[true, true]}
        aria-label="Date range"
        onChange={(range) =>
          onChange({
            ...value,
            from: range?.[0]?.toISOString() ?? undefined,
            to: range?.[1]?.toISOString() ?? undefined,
          })
        }
      />
    </Space>
  );
}
