import { FolderOutlined } from '@ant-design/icons';
import { formatCount, type FolderSummary } from '@studio/contracts';
import { Card, Empty, List, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Paths } from '../../paths';

/** The owner's folders, each leading to its contents. */
export function FolderList({ folders, extra }: { folders: FolderSummary[]; extra?: ReactNode }) {
  return (
    <Card title="Folders" extra={extra}>
      <List
        dataSource={folders}
        locale={{ emptyText: <Empty description="No folders yet." /> }}
        renderItem={(folder) => (
          <List.Item>
            <Link to={Paths.bulkInpaints(folder._id)}>
              <FolderOutlined /> {folder.title}
            </Link>
            <Typography.Text type="secondary" data-testid="folder-amount">
              {formatCount(folder.amount)}
            </Typography.Text>
          </List.Item>
        )}
      />
    </Card>
  );
}
