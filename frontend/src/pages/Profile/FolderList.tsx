import { FolderOutlined } from '@ant-design/icons';
import { formatCount, type FolderSummary } from '@studio/contracts';
import { Card, Empty, List, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { DeleteFolderButton, RenameFolderButton } from '../../folders/FolderActions';
import { useLiveFolders } from '../../folders/useLiveFolders';
import { Paths } from '../../paths';

const noReload = () => undefined;

/**
 * The owner's folders, each leading to its contents, with rename and delete. Names and counts
 * follow the server's pushes; `onReload` reads them again after the socket (re)joins.
 */
export function FolderList({
  folders: initial,
  extra,
  onReload = noReload,
}: {
  folders: FolderSummary[];
  extra?: ReactNode;
  onReload?(): void;
}) {
  const [folders, setFolders] = useLiveFolders(initial, onReload);
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
                onRenamed={(renamed) =>
                  setFolders((all) => all.map((f) => (f._id === renamed._id ? renamed : f)))
                }
              />,
              <DeleteFolderButton
                key="delete"
                folder={folder}
                onDeleted={() => setFolders((all) => all.filter((f) => f._id !== folder._id))}
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
