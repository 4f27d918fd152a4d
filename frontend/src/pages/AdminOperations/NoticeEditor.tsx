import {
  TOOL_LABELS,
  type JobTool,
  type MaintenanceNotice,
  type NoticeSeverity,
  type SetNoticeRequest,
} from '@studio/contracts';
import { Button, Card, Flex, Input, Select, Space, Switch, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { apiPut, errorText } from '../../api/client';
import { formatLocalDateTime } from '../../admin/format';
import { useToast } from '../../ui/toast';

const SEVERITY_OPTIONS: { value: NoticeSeverity; label: string }[] = [
  { value: 'info', label: 'Info' },
  { value: 'warning', label: 'Warning' },
  { value: 'error', label: 'Error' },
];

const NOTICE_TEXT_MAX = 500;

/** How an example notice names each tool (TOOL_LABELS name folders: 'Clones', 'Generated'). */
const EXAMPLE_SUBJECT: Record<JobTool, string> = {
  clone: 'Cloning',
  superResolution: 'Super resolution',
  faceSwap: 'Face swap',
  inpaint: 'Magic Brush',
  generate: 'Image generation',
  faceSwapVideo: 'Video face swap',
};

/** The notice text's placeholder: an example about this tool. */
function noticePlaceholder(tool: JobTool): string {
  return `e.g. ${EXAMPLE_SUBJECT[tool]} is slower than usual while we upgrade the servers.`;
}

function draftOf(notice: MaintenanceNotice | undefined): SetNoticeRequest {
  return {
    text: notice?.text ?? '',
    severity: notice?.severity ?? 'warning',
    enabled: notice?.enabled ?? false,
  };
}

/**
 * One tool's maintenance notice: text, severity and on/off, saved with PUT /api/admin/notices/{tool}.
 * The switch saves at once; text and severity on Save. The shown state follows the server's
 * 'operations.changed' pushes unless the admin has unsaved edits.
 */
export function NoticeEditor({ tool, notice }: { tool: JobTool; notice: MaintenanceNotice | undefined }) {
  const toast = useToast();
  const saved = draftOf(notice);
  const [draft, setDraft] = useState<SetNoticeRequest>(saved);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const { text, severity, enabled } = saved;

  // Follows the server's state when it changes (a push), unless the admin has unsaved edits. Not
  // when a save clears `dirty`: the saved draft stands until the push says the same, rather than
  // the old state coming back in between (the switch then read the old empty text and refused).
  const dirtyNow = useRef(dirty);
  dirtyNow.current = dirty;
  useEffect(() => {
    if (!dirtyNow.current) setDraft({ text, severity, enabled });
  }, [text, severity, enabled]);

  const save = async (next: SetNoticeRequest) => {
    setBusy(true);
    const payload: SetNoticeRequest = { ...next, text: next.text.trim() };
    const result = await apiPut(`/admin/notices/${tool}`, payload);
    setBusy(false);
    if (result.ok) {
      setDraft(payload);
      setDirty(false);
      toast.success(`${TOOL_LABELS[tool]} notice saved`);
    } else {
      toast.error(errorText(result));
    }
  };

  const edit = (change: Partial<SetNoticeRequest>) => {
    setDraft((current) => ({ ...current, ...change }));
    setDirty(true);
  };

  return (
    <Card
      size="small"
      title={TOOL_LABELS[tool]}
      data-testid={`notice-${tool}`}
      extra={
        <Space>
          <Typography.Text type="secondary">{draft.enabled ? 'Shown' : 'Off'}</Typography.Text>
          <Switch
            aria-label={`${TOOL_LABELS[tool]} notice on`}
            checked={draft.enabled}
            loading={busy}
            disabled={!draft.text.trim() && !draft.enabled}
            onChange={(on) => void save({ ...draft, enabled: on })}
          />
        </Space>
      }
    >
      <Space direction="vertical" style={{ width: '100%' }}>
        <Input.TextArea
          aria-label={`${TOOL_LABELS[tool]} notice text`}
          placeholder={noticePlaceholder(tool)}
          value={draft.text}
          maxLength={NOTICE_TEXT_MAX}
          autoSize={{ minRows: 2, maxRows: 4 }}
          onChange={(event) => edit({ text: event.target.value })}
        />
        <Flex justify="space-between" align="center" wrap gap="small">
          <Select<NoticeSeverity>
            aria-label={`${TOOL_LABELS[tool]} notice severity`}
            style={{ width: 140 }}
            options={SEVERITY_OPTIONS}
            value={draft.severity}
            onChange={(value) => edit({ severity: value })}
          />
          <Space>
            {notice?.updatedAt && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                Updated {formatLocalDateTime(notice.updatedAt)}
                {notice.updatedBy ? ` by ${notice.updatedBy}` : ''}
              </Typography.Text>
            )}
            <Button type="primary" disabled={!dirty} loading={busy} onClick={() => void save(draft)}>
              Save
            </Button>
          </Space>
        </Flex>
      </Space>
    </Card>
  );
}
