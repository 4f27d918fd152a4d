import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import {
  ContentMessages,
  FOLDER_TITLE_MAX,
  Messages,
  nameProblem,
  type FolderSummary,
} from '@studio/contracts';
import { Button, Input, Modal, Popconfirm, Typography, type InputRef } from 'antd';
import { useRef, useState } from 'react';
import { apiDelete, apiPatch, errorText } from '../api/client';
import { useToast } from '../ui/toast';

/** "Rename" and its modal (PATCH /api/folders/{id}), with the same name rules as creating. */
export function RenameFolderButton({
  folder,
  onRenamed,
}: {
  folder: FolderSummary;
  onRenamed(folder: FolderSummary): void;
}) {
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(folder.title);
  const [busy, setBusy] = useState(false);
  const field = useRef<InputRef>(null);
  const problem = !title.trim()
    ? Messages.folderNameRequired
    : nameProblem(title) && Messages.unsafeCharacters;

  const save = async () => {
    if (problem) {
      toast.error(problem);
      return;
    }
    setBusy(true);
    const result = await apiPatch<FolderSummary>(`/folders/${folder._id}`, { title: title.trim() });
    setBusy(false);
    if (!result.ok || !result.body) {
      toast.error(errorText(result));
      return;
    }
    setOpen(false);
    onRenamed(result.body.content);
  };

  return (
    <>
      <Button
        type="text"
        icon={<EditOutlined />}
        aria-label={`Rename ${folder.title}`}
        onClick={() => {
          setTitle(folder.title);
          setOpen(true);
        }}
      />
      <Modal
        title="Rename folder"
        open={open}
        onCancel={() => setOpen(false)}
        afterOpenChange={(opened) => opened && field.current?.select()}
        okText="Rename"
        confirmLoading={busy}
        onOk={save}
      >
        <label htmlFor="folder-new-name">Folder Name</label>
        <Input
          ref={field}
          id="folder-new-name"
          maxLength={FOLDER_TITLE_MAX}
          value={title}
          status={problem ? 'error' : undefined}
          onChange={(e) => setTitle(e.target.value)}
          onPressEnter={save}
        />
        {problem && <Typography.Text type="danger">{problem}</Typography.Text>}
      </Modal>
    </>
  );
}

/** "Delete" after a confirmation (DELETE /api/folders/{id}); the server keeps a folder with content. */
export function DeleteFolderButton({ folder, onDeleted }: { folder: FolderSummary; onDeleted(): void }) {
  const toast = useToast();
  const remove = async () => {
    const result = await apiDelete(`/folders/${folder._id}`);
    if (!result.ok) {
      toast.error(errorText(result));
      return;
    }
    toast.info(ContentMessages.deleted);
    onDeleted();
  };
  return (
    <Popconfirm
      title={`Delete “${folder.title}”?`}
      description="Only an empty folder can be deleted."
      okText="Delete"
      okButtonProps={{ danger: true }}
      onConfirm={remove}
    >
      <Button type="text" danger icon={<DeleteOutlined />} aria-label={`Delete ${folder.title}`} />
    </Popconfirm>
  );
}
