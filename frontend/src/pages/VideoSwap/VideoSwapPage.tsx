import { SmileOutlined, SwapOutlined } from '@ant-design/icons';
import {
  FaceSwapVideoFields,
  Messages,
  VIDEO_PRICE_RULE,
  VIDEO_MAX_SECONDS,
  videoPriceText,
  videoSwapCost,
  type JobSubmitContent,
  formatCount,
} from '@studio/contracts';
import { Alert, Button, Card, Checkbox, Col, Row, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiUpload, errorText, NO_RESPONSE } from '../../api/client';
import { ParentFolderField } from '../../folders/ParentFolderField';
import { useOwnFolders } from '../../folders/useOwnFolders';
import { usePickedImage } from '../../images/usePickedImage';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { useJobs } from '../../jobs/useJobs';
import { NoticeAlerts } from '../../operations/NoticeAlerts';
import { AgeCheckNotice } from '../../ui/AgeCheckNotice';
import { useOperations } from '../../operations/useOperations';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { ToolFrame } from '../../ui/ToolFrame';
import { useToast } from '../../ui/toast';
import { FacePicker } from '../FaceSwap/FacePicker';
import { CONSENT_TEXT } from '../FaceSwap/FaceSwapPage';
import { useVideoFaceCheck } from './useVideoFaceCheck';
import { VideoDropzone } from './VideoDropzone';

export const VideoSwapTexts = {
  beta: 'Video face swapping is in beta: expect issues, and keep your videos short.',
  cost: (credits: number) => `This swap will cost ${formatCount(credits)} credits`,
  tooLong: `Max video length is ${VIDEO_MAX_SECONDS} seconds.`,
  switchedOff: 'Video face swap is switched off for now.',
  inProgress: 'Video Face Swap in Progress',
} as const;

/**
 * Video face swap (BETA, spec section 2): folder, video, face image. The price follows the
 * video's length; the Swap button works only while admins have the feature switched on.
 */
export function VideoSwapPage() {
  return useRequireLogin({ explain: true }) ? <VideoSwapScreen /> : null;
}

function VideoSwapScreen() {
  const { account, balance } = useSession();
  const { track } = useJobs();
  const toast = useToast();
  const navigate = useNavigate();
  const operations = useOperations();
  const { folders, loading } = useOwnFolders();
  const face = usePickedImage();
  const [folder, setFolder] = useState<string>();
  const [video, setVideo] = useState<File | null>(null);
  const [duration, setDuration] = useState<number | null>(null);
  const [consent, setConsent] = useState(false);
  const [busy, setBusy] = useState(false);
  // The video first, then the face (SwapVideo0, SwapVideo1); the length is read again from the file.
  const prefill = usePrefillFromJob('faceSwapVideo', ({ job, files }) => {
    if (files[0]) {
      setDuration(null);
      setVideo(files[0]);
    }
    if (files[1]) void face.pick(files[1]);
    if (job.folderId) setFolder(job.folderId);
  });

  const enabled = operations.flags.videoFaceSwap;
  const faces = useVideoFaceCheck(video, face.image, enabled);
  const tooLong = duration !== null && duration > VIDEO_MAX_SECONDS;
  const cost = duration !== null ? videoSwapCost(duration) : null;
  const affordable = cost !== null && cost <= (balance ?? 0);
  // Swap only a choice the free check accepts (the server checks it again before charging).
  const accepted = !!faces.verdict?.ok;
  const ready =
    enabled && !!folder && !!video && !!face.image && duration !== null && !tooLong && affordable && accepted;

  const swap = async () => {
    if (!account) {
      toast.error(Messages.needLogin);
      navigate(Paths.login);
      return;
    }
    if (!ready || !video || !face.image || !folder || duration === null) return;
    const form = new FormData();
    form.append(FaceSwapVideoFields.video, video, video.name);
    form.append(FaceSwapVideoFields.face, face.image.blob, face.image.fileName);
    form.append('author', account);
    form.append('folder', folder);
    form.append('length', String(duration));
    form.append('consent', 'true');
    for (const [name, value] of faces.fields()) form.append(name, value);
    setBusy(true);
    const result = await apiUpload<JobSubmitContent | string>('/faceSwapVideo', form);
    setBusy(false);
    const content = result.body?.content;
    if (result.ok && content && typeof content === 'object') {
      track(content.job);
      toast.success(VideoSwapTexts.inProgress);
    } else if (result.status !== NO_RESPONSE) {
      toast.error(errorText(result));
    }
  };

  return (
    <ToolFrame
      title="Video face swap"
      description="Put the face from an image onto the person in a short video."
      price={VIDEO_PRICE_RULE}
    >
      <AgeCheckNotice />
      <NoticeAlerts
        operations={operations}
        tool="faceSwapVideo"
        before={<Alert type="info" showIcon message={VideoSwapTexts.beta} data-testid="beta-notice" />}
      />
      <PrefillNotice state={prefill} />
      <Card className="tool-card">
        <ParentFolderField
          id="video-swap-folder"
          folders={folders}
          loading={loading}
          value={folder}
          onChange={setFolder}
        />
        <Row gutter={[24, 24]}>
          <Col xs={24} md={12}>
            <Typography.Title level={5}>Video</Typography.Title>
            <VideoDropzone label="Video" file={video} onFile={setVideo} onDuration={setDuration} />
          </Col>
          <Col xs={24} md={12}>
            <Typography.Title level={5}>Image</Typography.Title>
            <ImageDropzone
              text="Drop the face here"
              hint="A clear, frontal face works best."
              label="Image"
              icon={<SmileOutlined />}
              image={face.image}
              reading={face.reading}
              onFile={(file) => void face.pick(file)}
            />
          </Col>
        </Row>
        {video && face.image && (faces.checking || faces.error || faces.check) && (
          <VideoFaceChoice faces={faces} faceUrl={face.image.dataUrl} />
        )}
        <div className="video-swap-facts" data-testid="video-facts">
          {duration !== null && (
            <Typography.Text type="secondary" data-testid="video-length">
              {videoPriceText(duration)}
            </Typography.Text>
          )}
          {cost !== null && !tooLong && (
            <Typography.Text strong data-testid="video-cost">
              {VideoSwapTexts.cost(cost)}
            </Typography.Text>
          )}
          {tooLong && (
            <Typography.Text type="danger" strong data-testid="video-too-long">
              {VideoSwapTexts.tooLong}
            </Typography.Text>
          )}
          {cost !== null && !tooLong && !affordable && (
            <Typography.Text type="danger">{Messages.notEnoughCredits}</Typography.Text>
          )}
        </div>
        <div className="tool-actions tool-actions-split">
          <Checkbox checked={consent} onChange={(e) => setConsent(e.target.checked)}>
            {CONSENT_TEXT}
          </Checkbox>
          {!enabled && operations.loaded && (
            <Typography.Text type="secondary" data-testid="video-swap-off">
              {VideoSwapTexts.switchedOff}
            </Typography.Text>
          )}
          <Button
            type="primary"
            size="large"
            icon={<SwapOutlined />}
            disabled={!ready || !consent || busy}
            onClick={() => void swap()}
          >
            {busy ? 'Loading...' : 'Swap'}
          </Button>
        </div>
      </Card>
    </ToolFrame>
  );
}

/** What the free check found: the faces of the face image and of the video's first frame to click. */
function VideoFaceChoice({
  faces,
  faceUrl,
}: {
  faces: ReturnType<typeof useVideoFaceCheck>;
  faceUrl: string;
}) {
  const { check, error, checking, choice, verdict } = faces;
  if (checking) {
    return (
      <div className="face-check" data-testid="face-check">
        <Spin size="small" /> <Typography.Text>Looking for faces in the first frame (free)…</Typography.Text>
      </div>
    );
  }
  if (error) return <Alert className="face-check" type="error" showIcon message={error} />;
  if (!check || !verdict) return null;
  return (
    <div className="face-check" data-testid="face-check">
      <Typography.Title level={5}>Faces found</Typography.Title>
      <Typography.Paragraph type="secondary">
        {check.source.faces.length} in the face image, {check.frame.faces.length} in the first frame of the
        video. Click the person to replace: the swap follows them through the clip.
      </Typography.Paragraph>
      <Row gutter={[24, 16]}>
        <Col xs={24} md={12}>
          <FacePicker
            side="Target"
            imageUrl={check.frameImage}
            report={check.frame}
            chosen={[choice.targetFace]}
            onPick={faces.chooseTarget}
          />
        </Col>
        <Col xs={24} md={12}>
          <FacePicker
            side="Source"
            imageUrl={faceUrl}
            report={check.source}
            chosen={[choice.sourceFace]}
            onPick={faces.chooseSource}
          />
        </Col>
      </Row>
      <Space direction="vertical" style={{ width: '100%', marginTop: 12 }}>
        {verdict.ok && (
          <Typography.Text data-testid="face-check-summary">
            Face {choice.sourceFace + 1} goes onto face {choice.targetFace + 1} of the video · Price:{' '}
            {formatCount(check.price)} credits (charged only when you swap)
          </Typography.Text>
        )}
        {verdict.warnings.map((warning) => (
          <Alert key={warning} type="warning" showIcon message={warning} />
        ))}
        {verdict.problems.map((problem) => (
          <Alert key={problem} type="error" showIcon message={problem} />
        ))}
      </Space>
    </div>
  );
}
