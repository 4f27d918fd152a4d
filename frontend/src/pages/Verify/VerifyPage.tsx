import { SafetyCertificateOutlined } from '@ant-design/icons';
import { VerifyMessages, type VerifyResult } from '@studio/contracts';
import { Alert, Card, Descriptions, Space, Spin, Tag, Typography, Upload } from 'antd';
import { useState } from 'react';
import { apiUpload } from '../../api/client';
import { formatWhen } from '../../ui/formatWhen';

const MANIFEST_TEXT: Record<VerifyResult['manifest']['state'], { color: string; text: string }> = {
  valid: { color: 'green', text: 'Signed by this studio, unchanged' },
  tampered: { color: 'red', text: 'Signed, but changed after signing' },
  foreign: { color: 'gold', text: 'Signed by someone else' },
  none: { color: 'default', text: 'No content credential' },
};

const WATERMARK_TEXT: Record<VerifyResult['watermark']['state'], { color: string; text: string }> = {
  ours: { color: 'green', text: 'Found: made by this studio' },
  unknown: { color: 'gold', text: 'A mark was read, but it matches no output of ours' },
  none: { color: 'default', text: 'Not found' },
};

const ACTIONS: Record<string, string> = { 'c2pa.created': 'created', 'c2pa.edited': 'edited' };

/**
 * The public verify page: anyone drops an image or a video and sees whether it carries this
 * studio's signed C2PA manifest and its invisible watermark, and when and with which tool it was
 * made. No personal data is shown (admins also see the job and owner; the server audits that).
 */
export function VerifyPage() {
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<VerifyResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState<string | null>(null);

  const check = async (file: File) => {
    setChecking(true);
    setError(null);
    setResult(null);
    setName(file.name);
    const form = new FormData();
    form.append('file', file);
    const answer = await apiUpload<VerifyResult | string>('/verify', form);
    setChecking(false);
    if (answer.ok && answer.body && typeof answer.body.content === 'object') {
      setResult(answer.body.content);
    } else if (answer.status === 429) {
      setError('Too many checks from here: try again in a minute.');
    } else {
      const content = answer.body?.content;
      setError(typeof content === 'string' ? content : VerifyMessages.unavailable);
    }
  };

  const manifest = result ? MANIFEST_TEXT[result.manifest.state] : null;
  const watermark = result ? WATERMARK_TEXT[result.watermark.state] : null;
  const tool =
    result?.watermark.tool ?? (result?.manifest.state === 'valid' ? result.manifest.tool : undefined);
  const madeAt =
    result?.watermark.createdAt ?? (result?.manifest.state === 'valid' ? result.manifest.when : undefined);

  return (
    <Space direction="vertical" size="large" style={{ width: '100%', maxWidth: 720, margin: '0 auto' }}>
      <div>
        <Typography.Title level={2}>
          <SafetyCertificateOutlined /> Verify a file
        </Typography.Title>
        <Typography.Paragraph type="secondary">
          Every image and video this studio makes carries a signed content credential (C2PA) and an invisible
          watermark that survives re-encoding, resizing and cropping. Drop a file to check it. Nothing you
          send is kept.
        </Typography.Paragraph>
      </div>
      <Upload.Dragger
        accept="image/jpeg,image/png,image/webp,video/mp4,video/quicktime,video/webm"
        multiple={false}
        showUploadList={false}
        disabled={checking}
        beforeUpload={(file) => {
          void check(file);
          return Upload.LIST_IGNORE;
        }}
        aria-label="File to verify"
      >
        <p className="ant-upload-drag-icon">
          <SafetyCertificateOutlined />
        </p>
        <p className="ant-upload-text">Click or drop an image or a video</p>
        <p className="ant-upload-hint">
          JPEG, PNG or WebP up to 15 MB; MP4, MOV or WebM up to 100 MB and 30 s
        </p>
      </Upload.Dragger>
      {checking && (
        <Spin tip="Checking…" data-testid="verify-checking">
          <div style={{ height: 48 }} />
        </Spin>
      )}
      {error && <Alert type="error" showIcon message={error} data-testid="verify-error" />}
      {result && manifest && watermark && (
        <Card title={name ?? 'Result'} data-testid="verify-result">
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label="Content credential">
              <Tag color={manifest.color} data-testid="verify-manifest">
                {manifest.text}
              </Tag>
            </Descriptions.Item>
            <Descriptions.Item label="Invisible watermark">
              <Tag color={watermark.color} data-testid="verify-watermark">
                {watermark.text}
              </Tag>
            </Descriptions.Item>
            {tool && <Descriptions.Item label="Tool">{tool}</Descriptions.Item>}
            {madeAt && <Descriptions.Item label="Made">{formatWhen(madeAt)}</Descriptions.Item>}
            {result.manifest.action && result.manifest.state !== 'none' && (
              <Descriptions.Item label="Declared action">
                {ACTIONS[result.manifest.action] ?? result.manifest.action}
                {result.manifest.aiGenerated ? ' with AI' : ''}
                {result.manifest.state === 'foreign' && result.manifest.generator
                  ? ` (${result.manifest.generator})`
                  : ''}
              </Descriptions.Item>
            )}
            {result.admin && (
              <Descriptions.Item label="Job and owner (admin)">
                <span data-testid="verify-admin">
                  job {result.admin.jobId}, item {result.admin.itemId}, {result.admin.owner.username}
                </span>
              </Descriptions.Item>
            )}
          </Descriptions>
        </Card>
      )}
    </Space>
  );
}
