import { FileTextOutlined } from '@ant-design/icons';
import { LOG_PAGE_SIZE, type LogEntry, type LogPage } from '@studio/contracts';
import { Button, Popover, Tag, Typography, type TableColumnsType } from 'antd';
import { formatLocalDateTime } from '../../admin/format';
import { ServerPagedTable } from '../../admin/ServerPagedTable';

const CATEGORY_COLORS: Record<string, string> = {
  FaceSwap: 'red',
  Credits: 'gold',
  Account: 'blue',
  Generation: 'purple',
  Operations: 'cyan',
  Folders: 'green',
  Support: 'magenta',
};

const columns: TableColumnsType<LogEntry> = [
  {
    title: 'Category',
    dataIndex: 'category',
    width: 130,
    render: (category: string) => <Tag color={CATEGORY_COLORS[category]}>{category}</Tag>,
  },
  {
    title: 'Username',
    key: 'username',
    width: 160,
    render: (_, entry) => entry.author?.username ?? <Typography.Text type="secondary">—</Typography.Text>,
  },
  {
    title: 'Date',
    dataIndex: 'createdOn',
    width: 190,
    render: (createdOn: string) => formatLocalDateTime(createdOn),
  },
  { title: 'Message', dataIndex: 'message' },
  {
    title: 'Detail',
    key: 'detail',
    width: 80,
    align: 'center',
    render: (_, entry) => (entry.detail ? <DetailButton detail={entry.detail} /> : null),
  },
];

/** An icon only when the entry has detail; clicking shows it. */
function DetailButton({ detail }: { detail: string }) {
  return (
    <Popover
      trigger="click"
      title="Detail"
      content={
        <pre style={{ maxWidth: 480, maxHeight: 320, overflow: 'auto', margin: 0, whiteSpace: 'pre-wrap' }}>
          {detail}
        </pre>
      }
    >
      <Button type="text" size="small" aria-label="Show detail" icon={<FileTextOutlined />} />
    </Popover>
  );
}

/** The log entries of one server page; paging asks the server for another. */
export function LogTable({
  data,
  loading,
  onPageChange,
}: {
  data: LogPage;
  loading: boolean;
  onPageChange(page: number, pageSize: number): void;
}) {
  return (
    <ServerPagedTable<LogEntry>
      columns={columns}
      data={data}
      loading={loading}
      onPageChange={onPageChange}
      pageSizeOptions={[...LOG_PAGE_SIZE.choices]}
    />
  );
}
