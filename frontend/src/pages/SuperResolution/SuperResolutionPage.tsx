import { ExpandOutlined } from '@ant-design/icons';
import {
  Messages,
  quoteTool,
  SUPER_RESOLUTION_SCALES,
  superResolutionUnits,
  TOOL_PRICES,
  type JobSubmitContent,
  type SuperResolutionScale,
} from '@studio/contracts';
import { Button, Card, Radio } from 'antd';
import { useState } from 'react';
import { apiPost } from '../../api/client';
import { usePickedImage } from '../../images/usePickedImage';
import { JobModal } from '../../jobs/JobModal';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { useJobSubmission } from '../../jobs/useJobSubmission';
import { ToolNotices } from '../../operations/ToolNotices';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { ToolFrame } from '../../ui/ToolFrame';
import { useToast } from '../../ui/toast';
import { UpscaledImage } from './UpscaledImage';
import { RADIO_GROUP_ROLE } from '../../ui/radioGroupRole';

/** Super resolution (spec section 2): pick an image, upscale it, see the result in the modal. */
export function SuperResolutionPage() {
  return useRequireLogin() ? <SuperResolutionScreen /> : null;
}

function SuperResolutionScreen() {
  const { account, balance } = useSession();
  const toast = useToast();
  const { image, reading, pick } = usePickedImage();
  const submission = useJobSubmission();
  const [scale, setScale] = useState<SuperResolutionScale>(2);
  const prefill = usePrefillFromJob('superResolution', ({ job, files }) => {
    if (files[0]) void pick(files[0]);
    if (job.settings.scale) setScale(job.settings.scale);
  });
  // The same units the server bills: the picked image is already fitted within 1024 px.
  const cost = image
    ? quoteTool('superResolution', superResolutionUnits(image.width, image.height, scale))
    : null;

  const upscale = async () => {
    if (!account || !image || cost === null) return;
    if (cost > (balance ?? 0)) {
      toast.error(Messages.notEnoughCredits);
      return;
    }
    await submission.submit((headers) =>
      apiPost<JobSubmitContent | string>(
        '/superResolution',
        { original: image.dataUrl, author: account, scale },
        headers,
      ),
    );
  };

  return (
    <ToolFrame
      title="Super resolution"
      description="Upscale an image with an AI model that adds back fine detail."
      price={`${TOOL_PRICES.superResolution} credits per started megapixel of the result`}
    >
      <ToolNotices tool="superResolution" />
      <PrefillNotice state={prefill} />
      <Card className="tool-card">
        <ImageDropzone
          text="Choose an image or drag it here"
          hint="JPEG, PNG or WebP. Large images are scaled to 1024 px per side."
          label="Image to upscale"
          image={image}
          reading={reading}
          onFile={(file) => void pick(file)}
          height={340}
        />
        <div className="tool-actions">
          <Radio.Group
            {...RADIO_GROUP_ROLE}
            aria-label="Upscaling factor"
            value={scale}
            onChange={(event) => setScale(event.target.value as SuperResolutionScale)}
            optionType="button"
            options={SUPER_RESOLUTION_SCALES.map((s) => ({ value: s, label: `${s}×` }))}
          />
          {image && cost !== null && (
            <span data-testid="sr-cost">
              {image.width * scale} × {image.height * scale} px: {cost} credits
            </span>
          )}
          <Button
            type="primary"
            size="large"
            icon={<ExpandOutlined />}
            disabled={!image || submission.busy}
            onClick={() => void upscale()}
          >
            Super Resolution
          </Button>
        </div>
      </Card>
      <JobModal
        submission={submission}
        width={720}
        renderResult={(job, url) => {
          const src = url ?? job.items[0]?.url;
          // The input's shape is the result's: the modal opens at its final size.
          return src ? (
            <UpscaledImage src={src} aspect={image ? image.width / image.height : undefined} />
          ) : null;
        }}
      />
    </ToolFrame>
  );
}
