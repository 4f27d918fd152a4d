import { FileImageOutlined } from '@ant-design/icons';
import {
  BULK_INPAINT_AMOUNT,
  JobMessages,
  Messages,
  nameProblem,
  plural,
  quoteTool,
  type FolderSummary,
  formatCount,
} from '@studio/contracts';
import { Button, Input, InputNumber, Modal, Select, Tag, Typography, Upload } from 'antd';
import { ACCEPTED_IMAGE_TYPES } from '../../images/imageTypes';
import { CoinIcon } from '../../ui/CoinIcon';
import { InpaintTexts, type InpaintForm } from './inpaintForm';

interface InpaintModalProps {
  open: boolean;
  form: InpaintForm;
  folders: FolderSummary[];
  foldersLoading: boolean;
  balance: number | null;
  busy: boolean;
  onChange(patch: Partial<InpaintForm>): void;
  /** Extra images dropped in the Add Images step. */
  onAddFiles(files: File[]): void;
  onCancel(): void;
  onSingle(): void;
  onBulk(): void;
  /** False while the CPU engine serves Magic Brush: it ignores the prompt, so none is asked for. */
  promptUsed?: boolean;
}

/** 'Create new inpaint': a prompt, then Single, or Bulk with folder, name, amount and more images. */
export function InpaintModal({
  open,
  form,
  folders,
  foldersLoading,
  balance,
  busy,
  onChange,
  onAddFiles,
  onCancel,
  onSingle,
  onBulk,
  promptUsed = true,
}: InpaintModalProps) {
  const images = 1 + form.extras.length;
  const amount = form.amount ?? 0;
  const cost = quoteTool('inpaint', amount * images);
  // The server refuses these characters in the name; say so while typing.
  const nameUnsafe = nameProblem(form.name) !== null;
  const cancel = (
    <Button key="cancel" onClick={onCancel}>
      Cancel
    </Button>
  );
  const bulkSubmit = (
    <Button
      key="inpaint"
      type="primary"
      loading={busy}
      disabled={!form.amount || nameUnsafe}
      onClick={onBulk}
    >
      Inpaint
    </Button>
  );
  const footer =
    form.step === 'prompt'
      ? [
          cancel,
          <Button key="bulk" onClick={() => onChange({ step: 'bulk' })}>
            Bulk
          </Button>,
          <Button key="single" type="primary" loading={busy} onClick={onSingle}>
            Single
          </Button>,
        ]
      : form.step === 'bulk'
        ? [
            <Button key="back" onClick={() => onChange({ step: 'prompt' })}>
              Back
            </Button>,
            cancel,
            <Button key="add" onClick={() => onChange({ step: 'images' })}>
              Add Images
            </Button>,
            bulkSubmit,
          ]
        : [
            <Button key="back" onClick={() => onChange({ step: 'bulk' })}>
              Back
            </Button>,
            cancel,
            bulkSubmit,
          ];

  return (
    <Modal
      title="Create new inpaint"
      open={open}
      onCancel={onCancel}
      centered
      width={520}
      footer={footer}
      destroyOnHidden
    >
      <div className="inpaint-form" data-step={form.step}>
        {form.step !== 'images' && !promptUsed && (
          <Typography.Text type="secondary" data-testid="no-prompt">
            No prompt needed: this server fills the painted area from the picture around it.
          </Typography.Text>
        )}
        {form.step !== 'images' && promptUsed && (
          <div className="inpaint-field">
            <label htmlFor="inpaint-prompt">Prompt</label>
            <Input.TextArea
              id="inpaint-prompt"
              value={form.prompt}
              onChange={(e) => onChange({ prompt: e.target.value })}
              placeholder="What should appear where you painted, e.g. 'red silk dress'"
              autoSize={{ minRows: 2, maxRows: 5 }}
              maxLength={500}
              autoFocus
            />
          </div>
        )}
        {form.step === 'prompt' && (
          <Typography.Text type="secondary">
            Single makes one image now. Bulk makes several, or inpaints more images with the same prompt, into
            a folder.
          </Typography.Text>
        )}
        {form.step === 'bulk' && (
          <>
            <div className="inpaint-field">
              <label htmlFor="inpaint-folder">Parent Folder</label>
              <Select
                id="inpaint-folder"
                loading={foldersLoading}
                disabled={!foldersLoading && folders.length === 0}
                placeholder={
                  !foldersLoading && folders.length === 0 ? JobMessages.createFolderFirst : 'Choose a folder'
                }
                value={form.folder}
                onChange={(folder: string) => onChange({ folder })}
                options={folders.map((f) => ({ value: f._id, label: f.title }))}
                style={{ width: '100%' }}
              />
            </div>
            <div className="inpaint-field">
              <label htmlFor="inpaint-name">Inpaint Name</label>
              <Input
                id="inpaint-name"
                value={form.name}
                onChange={(e) => onChange({ name: e.target.value })}
                placeholder="Red dress..."
                maxLength={64}
                status={nameUnsafe ? 'error' : undefined}
              />
              {nameUnsafe && <Typography.Text type="danger">{Messages.unsafeCharacters}</Typography.Text>}
            </div>
            <div className="inpaint-field">
              <label htmlFor="inpaint-amount">Amount</label>
              <InputNumber
                id="inpaint-amount"
                min={BULK_INPAINT_AMOUNT.min}
                max={BULK_INPAINT_AMOUNT.max}
                precision={0}
                value={form.amount}
                onChange={(value) => onChange({ amount: value })}
                style={{ width: '100%' }}
              />
              <Typography.Text type="secondary">Images made from each picture.</Typography.Text>
            </div>
          </>
        )}
        {form.step === 'images' && (
          <Upload.Dragger
            className="inpaint-extra-drop"
            accept={ACCEPTED_IMAGE_TYPES}
            multiple
            showUploadList={false}
            beforeUpload={(file, list) => {
              // antd calls this once per file; hand the whole drop over once, with its last file.
              if (file === list[list.length - 1]) onAddFiles(list);
              return Upload.LIST_IGNORE;
            }}
            aria-label="Extra images"
          >
            <p className="ant-upload-drag-icon">
              <FileImageOutlined />
            </p>
            <p className="ant-upload-text">Drop more images here or click to choose them</p>
            <p className="ant-upload-hint">The same mask and prompt are used on each of them.</p>
          </Upload.Dragger>
        )}
        {form.step !== 'prompt' && (
          <div className="inpaint-added">
            <Typography.Text strong data-testid="images-added">
              {InpaintTexts.imagesAdded(form.extras.length)}
            </Typography.Text>
            {form.step === 'images' && form.extras.length > 0 && (
              <div className="inpaint-extra-list">
                {form.extras.map((extra, index) => (
                  <Tag
                    key={`${extra.name}-${index}`}
                    closable
                    onClose={() => onChange({ extras: form.extras.filter((_, i) => i !== index) })}
                  >
                    <img src={extra.image.dataUrl} alt={`Added image ${index + 1}`} /> {extra.name}
                  </Tag>
                ))}
              </div>
            )}
            <Typography.Text type="secondary" data-testid="inpaint-cost">
              {plural(images, 'image')} × {amount} = <CoinIcon /> {plural(cost, 'credit')} · your balance is{' '}
              {formatCount(balance ?? 0)}
            </Typography.Text>
          </div>
        )}
      </div>
    </Modal>
  );
}
