import { formatCount } from '@studio/contracts';
import type { Page } from '@studio/contracts';
import { Table, type TableColumnsType } from 'antd';

interface ServerPagedTableProps<T> {
  columns: TableColumnsType<T>;
  data: Page<T>;
  loading: boolean;
  onPageChange(page: number, pageSize: number): void;
  /** Page sizes to offer; without it the size is fixed. */
  pageSizeOptions?: number[];
}

/** A table of one server page (`Page<T>`); moving to another page asks the server for it. */
export function ServerPagedTable<T extends { _id: string }>({
  columns,
  data,
  loading,
  onPageChange,
  pageSizeOptions,
}: ServerPagedTableProps<T>) {
  return (
    <Table<T>
      rowKey="_id"
      size="small"
      columns={columns}
      dataSource={data.items}
      loading={loading}
      scroll={{ x: 800 }}
      pagination={{
        current: data.page,
        pageSize: data.pageSize,
        total: data.total,
        showSizeChanger: !!pageSizeOptions,
        pageSizeOptions,
        showTotal: (total) => `${formatCount(total)} entries`,
        onChange: onPageChange,
      }}
    />
  );
}
