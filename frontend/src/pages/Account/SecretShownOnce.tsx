import { Alert, Modal, Typography } from 'antd';

/**
 * The dialog that shows a new secret (an API key, a webhook's signing secret) the one time the
 * server sends it back: copyable, with the warning that it cannot be seen again.
 */
export function SecretShownOnce({
  secret,
  title,
  warning,
  testId,
  onClose,
}: {
  /** The secret to show; no dialog while it is null. */
  secret: string | null;
  title: string;
  warning: string;
  testId: string;
  onClose: () => void;
}) {
  return (
    <Modal
      open={!!secret}
      title={title}
      okText="I have copied it"
      cancelButtonProps={{ style: { display: 'none' } }}
      onOk={onClose}
      onCancel={onClose}
      destroyOnHidden
    >
      <Alert type="warning" showIcon message={warning} style={{ marginBottom: 12 }} />
      <Typography.Paragraph copyable={{ text: secret ?? undefined }} data-testid={testId} code>
        {secret}
      </Typography.Paragraph>
    </Modal>
  );
}
