import { PlusOutlined } from '@ant-design/icons';
import { FOLDER_TITLE_MAX, Messages, nameProblem } from '@studio/contracts';
import { Button, Input, Modal, Typography, type InputRef } from 'antd';
import { useRef, useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { useSession } from '../../session/useSession';
import { useToast } from '../../ui/toast';

/** 'Create Folder' and its 'Create new folder' modal (spec section 2). */
export function CreateFolderButton({ onCreated }: { onCreated(): void }) {
  const { account } = useSession();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [missing, setMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const nameField = useRef<InputRef>(null);

  const close = () => {
    setOpen(false);
    setTitle('');
    setMissing(false);
  };

  // The server refuses control, text-direction and invisible characters; say so while typing.
  const unsafe = nameProblem(title) !== null;

  const create = async () => {
    if (!title.trim()) {
      setMissing(true);
      toast.error(Messages.folderNameRequired);
      return;
    }
    if (unsafe) {
      toast.error(Messages.unsafeCharacters);
      return;
    }
    setBusy(true);
    const result = await apiPost('/makeFolder', { author: account, title: title.trim() });
    setBusy(false);
    if (!result.ok) {
      toast.error(errorText(result));
      return;
    }
    close();
    onCreated();
  };

  return (
    <>
      <Button type="primary" icon={<PlusOutlined />} onClick={() => setOpen(true)}>
        Create Folder
      </Button>
      <Modal
        title="Create new folder"
        open={open}
        onCancel={close}
        // autoFocus alone loses to the modal's own focus handling once the open animation ends.
        afterOpenChange={(opened) => opened && nameField.current?.focus()}
        footer={[
          <Button key="cancel" onClick={close}>
            Cancel
          </Button>,
          <Button key="create" type="primary" loading={busy} onClick={create}>
            Create Folder
          </Button>,
        ]}
      >
        <label htmlFor="folder-name">Folder Name</label>
        <Input
          ref={nameField}
          id="folder-name"
          placeholder="Model #1..."
          maxLength={FOLDER_TITLE_MAX}
          value={title}
          status={missing || unsafe ? 'error' : undefined}
          onChange={(e) => {
            setTitle(e.target.value);
            setMissing(false);
          }}
          onPressEnter={create}
        />
        {missing && <Typography.Text type="danger">{Messages.folderNameRequired}</Typography.Text>}
        {unsafe && <Typography.Text type="danger">{Messages.unsafeCharacters}</Typography.Text>}
      </Modal>
    </>
  );
}
