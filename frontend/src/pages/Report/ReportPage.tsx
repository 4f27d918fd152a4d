import { FlagOutlined, InboxOutlined } from '@ant-design/icons';
import {
  ANONYMOUS_REPORT_CATEGORIES,
  REPORT_DEADLINE_HOURS,
  REPORT_LIMITS,
  ReportMessages,
  type ReportCategory,
  type ReportReceipt,
} from '@studio/contracts';
import { Alert, Button, Checkbox, Form, Input, Radio, Result, Space, Typography, Upload } from 'antd';
import { useState } from 'react';
import { apiUpload, errorText } from '../../api/client';
import { RADIO_GROUP_ROLE } from '../../ui/radioGroupRole';

interface ReportForm {
  category: string;
  reporterRole: string;
  url?: string;
  name: string;
  email: string;
  explanation: string;
  goodFaith: boolean;
  signature: string;
}

export const GOOD_FAITH_STATEMENT =
  'I state in good faith that the content shows me (or the person I am authorised to act for) in an intimate way without consent, or is otherwise illegal as I explain above, and that the information in this report is accurate and complete.';

/** What the receipt page says after the reference: only what happened (was a receipt mailed?). */
export function receiptText(receipt: ReportReceipt, emailGiven: boolean): string {
  const by = `We decide it by ${new Date(receipt.deadline).toLocaleString()} (within ${REPORT_DEADLINE_HOURS} hours)`;
  if (receipt.receiptMailed) return `${by} and email you the outcome; a receipt is on its way to you.`;
  // The server mails no receipt for an anonymous notice, nor past a few a day to one address.
  return !emailGiven
    ? `${by}. ${ReportMessages.receiptAnonymous}`
    : `${by} and email you the outcome. ${ReportMessages.receiptNotMailed}`;
}

/**
 * The public report page (TAKE IT DOWN Act notice; EU DSA Art. 16 notice): no account needed.
 * It asks for what a valid notice needs: the content (a copy and/or its address), why it is
 * illegal or shows the person without consent, contact details, the good-faith statement and a
 * typed signature. The answer is a receipt with the 48-hour deadline, also sent by email.
 */
export function ReportPage() {
  const [form] = Form.useForm<ReportForm>();
  const [file, setFile] = useState<File | null>(null);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<ReportReceipt | null>(null);
  const [emailGiven, setEmailGiven] = useState(false);
  const category = Form.useWatch('category', form) as ReportCategory | undefined;
  // Child sexual abuse notices may be anonymous (DSA Art. 16(2)(c)).
  const anonymous = category !== undefined && ANONYMOUS_REPORT_CATEGORIES.includes(category);

  const send = async (values: ReportForm) => {
    if (!file && !values.url?.trim()) {
      setError(ReportMessages.fileOrUrlRequired);
      return;
    }
    setSending(true);
    setError(null);
    const body = new FormData();
    for (const key of [
      'category',
      'reporterRole',
      'url',
      'name',
      'email',
      'explanation',
      'signature',
    ] as const) {
      const value = values[key];
      if (value) body.append(key, value);
    }
    body.append('goodFaith', values.goodFaith ? 'true' : 'false');
    if (file) body.append('file', file);
    const answer = await apiUpload<{ report: ReportReceipt }>('/reports', body);
    setSending(false);
    if (answer.ok && answer.body && typeof answer.body.content === 'object') {
      setEmailGiven(Boolean(values.email?.trim()));
      setReceipt(answer.body.content.report);
    } else if (answer.status === 429) {
      setError('Too many reports from here: try again later, or write to us by email.');
    } else {
      setError(errorText(answer));
    }
  };

  if (receipt) {
    return (
      <div data-testid="report-receipt">
        <Result
          status="success"
          title="Report received"
          subTitle={`Reference ${receipt.id}. ${receiptText(receipt, emailGiven)}`}
        />
      </div>
    );
  }

  return (
    <Space direction="vertical" size="large" style={{ width: '100%', maxWidth: 720, margin: '0 auto' }}>
      <div>
        <Typography.Title level={2}>
          <FlagOutlined /> Report content
        </Typography.Title>
        <Typography.Paragraph type="secondary">
          Report an image or video made with this studio that shows you, or someone you act for, in an
          intimate way without consent, or that is otherwise illegal. You do not need an account. We decide
          every valid report within {REPORT_DEADLINE_HOURS} hours, remove the content and every copy we find
          in any account, and stop the same picture from being made again.
        </Typography.Paragraph>
      </div>
      <Form<ReportForm>
        form={form}
        layout="vertical"
        onFinish={(values) => void send(values)}
        initialValues={{ category: 'intimate_without_consent', reporterRole: 'depicted' }}
        aria-label="Report form"
      >
        {/* Named by aria-label: the label's for= cannot name a div. */}
        <Form.Item name="category" label="What is it?" rules={[{ required: true }]}>
          <Radio.Group {...RADIO_GROUP_ROLE} aria-label="What is it?">
            <Radio value="intimate_without_consent">An intimate image or video shared without consent</Radio>
            <Radio value="child_sexual_abuse">Child sexual abuse material (you may stay anonymous)</Radio>
            <Radio value="other_illegal">Other illegal content</Radio>
          </Radio.Group>
        </Form.Item>
        <Form.Item name="reporterRole" label="You are" rules={[{ required: true }]}>
          <Radio.Group {...RADIO_GROUP_ROLE} aria-label="You are">
            <Radio value="depicted">The person shown</Radio>
            <Radio value="representative">Authorised to act for the person shown</Radio>
            <Radio value="other">Someone else</Radio>
          </Radio.Group>
        </Form.Item>
        <Form.Item label="A copy of the image or video (if you have one)">
          <Upload.Dragger
            accept="image/jpeg,image/png,image/webp,video/mp4,video/quicktime,video/webm"
            multiple={false}
            maxCount={1}
            beforeUpload={(picked) => {
              setFile(picked);
              return false;
            }}
            onRemove={() => setFile(null)}
            aria-label="Copy of the content"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{file ? file.name : 'Click or drop the file'}</p>
            <p className="ant-upload-hint">
              JPEG, PNG or WebP up to 15 MB; MP4, MOV or WebM up to 100 MB and 30 s. Used only to find and
              remove it.
            </p>
          </Upload.Dragger>
        </Form.Item>
        <Form.Item
          name="url"
          label="Where it appears (address), if you know it"
          rules={[{ type: 'url', message: ReportMessages.badUrl }, { max: REPORT_LIMITS.urlChars }]}
        >
          <Input placeholder="https://…" />
        </Form.Item>
        <Form.Item
          name="explanation"
          label="Why it shows the person without consent, or why it is illegal"
          rules={[
            { required: true, whitespace: true, message: ReportMessages.explanationRequired },
            { max: REPORT_LIMITS.explanationChars },
          ]}
        >
          <Input.TextArea rows={4} maxLength={REPORT_LIMITS.explanationChars} showCount />
        </Form.Item>
        <Form.Item
          name="name"
          label="Your name"
          rules={[
            { required: !anonymous, whitespace: true, message: ReportMessages.nameRequired },
            { max: REPORT_LIMITS.nameChars },
          ]}
        >
          <Input autoComplete="name" />
        </Form.Item>
        <Form.Item
          name="email"
          label="Your email (for the receipt and the decision)"
          rules={[
            { required: !anonymous, type: 'email', message: ReportMessages.emailRequired },
            { max: REPORT_LIMITS.emailChars },
          ]}
        >
          <Input autoComplete="email" />
        </Form.Item>
        <Form.Item
          name="goodFaith"
          valuePropName="checked"
          rules={[
            {
              validator: (_, checked) =>
                checked ? Promise.resolve() : Promise.reject(new Error(ReportMessages.goodFaithRequired)),
            },
          ]}
        >
          <Checkbox>{GOOD_FAITH_STATEMENT}</Checkbox>
        </Form.Item>
        <Form.Item
          name="signature"
          label="Signature: type your full name"
          rules={[
            { required: !anonymous, whitespace: true, message: ReportMessages.signatureRequired },
            { max: REPORT_LIMITS.signatureChars },
          ]}
        >
          <Input />
        </Form.Item>
        {error && (
          <Alert
            type="error"
            showIcon
            message={error}
            data-testid="report-error"
            style={{ marginBottom: 16 }}
          />
        )}
        <Button type="primary" htmlType="submit" loading={sending}>
          Send report
        </Button>
      </Form>
    </Space>
  );
}
