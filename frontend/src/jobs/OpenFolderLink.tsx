import { FolderOpenOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { Paths } from '../paths';

/** " · Open folder" after a job's results (the tray's rows, the jobs page); nothing without a folder. */
export function OpenFolderLink({ folderId, onOpen }: { folderId?: string; onOpen?(): void }) {
  if (!folderId) return null;
  return (
    <>
      {' · '}
      <Link to={Paths.bulkInpaints(folderId)} onClick={onOpen}>
        <FolderOpenOutlined /> Open folder
      </Link>
    </>
  );
}
