import { PictureOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  buildGenerationRequest,
  initialTagChoices,
  MODAL_CLOSE_DELAY_MS,
  Messages,
  PromptMessages,
  quoteTool,
  TAG_CATEGORIES,
  TOOL_PRICES,
  type JobSubmitContent,
  type TagChoices,
} from '@studio/contracts';
import { Alert, Button, Card, Typography } from 'antd';
import { useState } from 'react';
import { apiPost } from '../../api/client';
import { JobModal } from '../../jobs/JobModal';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { useJobSubmission } from '../../jobs/useJobSubmission';
import { NoticeAlerts } from '../../operations/NoticeAlerts';
import { useOperations } from '../../operations/useOperations';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { ToolFrame } from '../../ui/ToolFrame';
import { useToast } from '../../ui/toast';
import { TagChooser } from './TagChooser';
import { useCountdown } from './useCountdown';

const UNAVAILABLE = 503;

/**
 * Generate (spec section 2): one tag per category, then 'Generate'. The modal shows the progress,
 * then the image or 'Check Later!', and may close 5 s after the request at the earliest.
 */
export function GeneratePage() {
  return useRequireLogin({ explain: true }) ? <GenerateScreen /> : null;
}

function GenerateScreen() {
  const { account, balance, refresh } = useSession();
  const toast = useToast();
  const operations = useOperations();
  const submission = useJobSubmission();
  const countdown = useCountdown(MODAL_CLOSE_DELAY_MS);
  const [choices, setChoices] = useState<TagChoices>(() => initialTagChoices());
  const [refused503, setRefused503] = useState(false);
  // Only tags of the current lists are taken: a tag since removed keeps today's choice.
  const prefill = usePrefillFromJob('generate', ({ job }) => {
    const tags = job.settings.tags ?? {};
    setChoices((current) => {
      const next = { ...current };
      for (const { key, tags: known } of TAG_CATEGORIES) {
        if (tags[key] && known.includes(tags[key])) next[key] = tags[key];
      }
      return next;
    });
  });

  const notConfigured = refused503 || (operations.loaded && operations.capabilities.generate === false);
  const request = buildGenerationRequest(choices);

  const choose = (key: string, value: string) => setChoices((current) => ({ ...current, [key]: value }));
  const shuffle = () => setChoices(initialTagChoices());

  const generate = async () => {
    if (!account) return;
    if (quoteTool('generate', 1) > (balance ?? 0)) {
      toast.error(Messages.notEnoughCredits);
      return;
    }
    countdown.start();
    await submission.submit(async (headers) => {
      const result = await apiPost<JobSubmitContent | string>(
        '/generateImage',
        // The chosen tags, kept with the job for "Edit and run".
        { ...request, tags: choices, author: account },
        headers,
      );
      if (result.status === UNAVAILABLE) setRefused503(true);
      return result;
    });
    // The spec polls the profile after the request: balance and badges.
    void refresh();
  };

  return (
    <ToolFrame
      title="Generate"
      description="Choose how she looks and where she is; the AI paints the picture."
      price={`${TOOL_PRICES.generate} credit per image`}
    >
      <NoticeAlerts operations={operations} tool="generate" />
      <PrefillNotice state={prefill} />
      {notConfigured && (
        <Alert
          type="warning"
          showIcon
          message={PromptMessages.notConfigured}
          description="No image generation engine is set up on this server yet, so nothing can be generated and nothing is charged."
          data-testid="generate-not-configured"
        />
      )}
      <Card className="tool-card">
        <div className="tag-grid">
          {TAG_CATEGORIES.map((category) => (
            <TagChooser
              key={category.key}
              category={category}
              value={choices[category.key]}
              onChange={choose}
            />
          ))}
        </div>
        <div className="generate-summary">
          <Typography.Text type="secondary">Your picture</Typography.Text>
          <Typography.Text strong data-testid="generate-title">
            {request.title}
          </Typography.Text>
        </div>
        <div className="tool-actions tool-actions-split">
          <Button size="large" icon={<ReloadOutlined />} onClick={shuffle}>
            Shuffle
          </Button>
          <Button
            type="primary"
            size="large"
            icon={<PictureOutlined />}
            disabled={notConfigured || submission.busy}
            onClick={() => void generate()}
          >
            Generate
          </Button>
        </div>
      </Card>
      <JobModal
        submission={submission}
        closeLockedSeconds={countdown.remaining}
        width={640}
        renderResult={(job, url) => {
          const src = url ?? job.items[0]?.url;
          return src ? <img className="job-result-image" src={src} alt="Generated image" /> : null;
        }}
      />
    </ToolFrame>
  );
}
