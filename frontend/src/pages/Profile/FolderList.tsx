import { FolderOutlined } from '@ant-design/icons';
import { formatCount, type FolderChange, type FolderSummary } from '@studio/contracts';
import { Card, Empty, List, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { DeleteFolderButton, RenameFolderButton } from '../../folders/FolderActions';
import { Paths } from '../../paths';

/**
 * The owner's folders (kept live by useProfile), each leading to its contents, with rename and
 * delete; `onChange` applies what a rename or delete answered at once.
 */
export function FolderList({
  folders,
  extra,
  onChange,
}: {
  folders: FolderSummary[];
  extra?: ReactNode;
  onChange(change: FolderChange): void;
}) {
  return (
    <Card title="Folders" extra={extra}>
      <List
        dataSource={folders}
        locale={{ emptyText: <Empty description="No folders yet." /> }}
        renderItem={(folder) => (
          <List.Item
            data-testid="folder-row"
            actions={[
              <RenameFolderButton
                key="rename"
                folder={folder}
                onRenamed={(renamed) => onChange({ folderId: renamed._id, folder: renamed })}
              />,
              <DeleteFolderButton
                key="delete"
                folder={folder}
                onDeleted={() => onChange({ folderId: folder._id, deleted: true })}
              />,
            ]}
          >
            <Space size="middle" style={{ minWidth: 0 }}>
              <Link to={Paths.bulkInpaints(folder._id)} style={{ overflowWrap: 'anywhere' }}>
                <FolderOutlined /> {folder.title}
              </Link>
              <Typography.Text type="secondary" data-testid="folder-amount">
                {formatCount(folder.amount)}
              </Typography.Text>
            </Space>
          </List.Item>
        )}
      />
    </Card>
  );
}
