import { FileTextOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import { LOG_PAGE_SIZE, type LogEntry, type LogPage } from '@studio/contracts';
import { Button, Flex, Popover, Select, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { formatLocalDateTime } from '../../admin/format';

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
    // One line: a wrapped date and time reads as two entries.
    render: (createdOn: string) => <span className="log-date">{formatLocalDateTime(createdOn)}</span>,
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

/**
 * The log entries of one server page, with Newer/Older buttons: the log is paged by cursor, so
 * the table knows the page's number and whether an older one exists, not the total.
 */
export function LogTable({
  data,
  loading,
  pageNumber,
  onNewer,
  onOlder,
  onPageSizeChange,
}: {
  data: LogPage;
  loading: boolean;
  /** 1 for the newest page. */
  pageNumber: number;
  onNewer(): void;
  onOlder(): void;
  onPageSizeChange(pageSize: number): void;
}) {
  return (
    <>
      <Table<LogEntry>
        rowKey="_id"
        size="small"
        columns={columns}
        dataSource={data.items}
        loading={loading}
        scroll={{ x: 800 }}
        pagination={false}
      />
      <Flex justify="flex-end" align="center" gap="small" wrap style={{ marginTop: 16 }}>
        <Typography.Text type="secondary" data-testid="log-page">
          Page {pageNumber}
        </Typography.Text>
        <Button icon={<LeftOutlined />} disabled={pageNumber <= 1 || loading} onClick={onNewer}>
          Newer
        </Button>
        <Button disabled={!data.next || loading} onClick={onOlder}>
          Older <RightOutlined />
        </Button>
        <Select
          aria-label="Page size"
          style={{ width: 120 }}
          value={data.pageSize}
          options={LOG_PAGE_SIZE.choices.map((size) => ({ value: size, label: `${size} / page` }))}
          onChange={onPageSizeChange}
        />
      </Flex>
    </>
  );
}
