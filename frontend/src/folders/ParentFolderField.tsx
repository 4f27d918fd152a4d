import type { FolderSummary } from '@studio/contracts';
import { JobMessages } from '@studio/contracts';
import { Select, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { Paths } from '../paths';

interface ParentFolderFieldProps {
  id: string;
  folders: FolderSummary[];
  loading: boolean;
  value?: string;
  onChange(folderId: string): void;
}

/**
 * The 'Parent Folder*' select of the swap screens: the user's folders, or the spec's
 * 'Create a folder on your profile page first' with a link there when there are none.
 */
export function ParentFolderField({ id, folders, loading, value, onChange }: ParentFolderFieldProps) {
  const none = !loading && folders.length === 0;
  return (
    <div className="swap-folder">
      <label htmlFor={id}>Parent Folder*</label>
      <Select
        id={id}
        size="large"
        loading={loading}
        disabled={none}
        placeholder={none ? JobMessages.createFolderFirst : 'Choose a folder'}
        value={value}
        onChange={onChange}
        options={folders.map((f) => ({ value: f._id, label: f.title }))}
        style={{ width: '100%' }}
      />
      {none && (
        <Typography.Text type="secondary">
          <Link to={Paths.profile}>Go to your profile</Link> to create one.
        </Typography.Text>
      )}
    </div>
  );
}
