import { AgeCheckNotice } from '../../ui/AgeCheckNotice';
import { SmileOutlined, SwapOutlined, UserOutlined } from '@ant-design/icons';
import { FACE_SWAP_LIMITS, quoteTool, TOOL_PRICES } from '@studio/contracts';
import { Alert, Button, Card, Checkbox, Col, Row, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { ParentFolderField } from '../../folders/ParentFolderField';
import { useOwnFolders } from '../../folders/useOwnFolders';
import { usePickedImage } from '../../images/usePickedImage';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { ToolNotices } from '../../operations/ToolNotices';
import { useRequireLogin } from '../../session/useRequireLogin';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { ToolFrame } from '../../ui/ToolFrame';
import { FacePicker } from './FacePicker';
import { useFaceCheck } from './useFaceCheck';
import { useFaceSwap } from './useFaceSwap';

export const CONSENT_TEXT = 'I have the consent of the person whose face I use';

/** Face swap (spec section 2): folder, face image, target image, consent, then 'Swap'. */
export function FaceSwapPage() {
  return useRequireLogin({ explain: true }) ? <FaceSwapScreen /> : null;
}

function FaceSwapScreen() {
  const { folders, loading } = useOwnFolders();
  const face = usePickedImage();
  // The target at its full size (up to the tool's limit): the result keeps that size.
  const target = usePickedImage(FACE_SWAP_LIMITS.targetSideMax);
  const faces = useFaceCheck(face.image, target.image);
  const [folder, setFolder] = useState<string>();
  const [consent, setConsent] = useState(false);
  const { busy, swap } = useFaceSwap();
  // The face first, then the target (Swap0, Swap1), into the same folder.
  const prefill = usePrefillFromJob('faceSwap', ({ job, files }) => {
    if (files[0]) void face.pick(files[0]);
    if (files[1]) void target.pick(files[1]);
    if (job.folderId) setFolder(job.folderId);
  });

  const ready = !!face.image && !!target.image && !!folder;
  const accepted = !!faces.verdict?.ok;
  return (
    <ToolFrame
      title="Face swap"
      description="Put the face from one image onto the person in another."
      price={`${TOOL_PRICES.faceSwap} credit per swap`}
    >
      <AgeCheckNotice />
      <ToolNotices tool="faceSwap" />
      <PrefillNotice state={prefill} />
      <Card className="tool-card">
        <ParentFolderField
          id="swap-folder"
          folders={folders}
          loading={loading}
          value={folder}
          onChange={setFolder}
        />
        <Row gutter={[24, 24]}>
          <Col xs={24} md={12}>
            <Typography.Title level={5}>Face Image</Typography.Title>
            <ImageDropzone
              text="Drop the face here"
              hint="A clear, frontal face works best."
              label="Face Image"
              icon={<SmileOutlined />}
              image={face.image}
              reading={face.reading}
              onFile={(file) => void face.pick(file)}
            />
          </Col>
          <Col xs={24} md={12}>
            <Typography.Title level={5}>Target Image</Typography.Title>
            <ImageDropzone
              text="Drop the target image here"
              hint="The person whose face gets replaced."
              label="Target Image"
              icon={<UserOutlined />}
              image={target.image}
              reading={target.reading}
              onFile={(file) => void target.pick(file)}
            />
          </Col>
        </Row>
        {face.image && target.image && (
          <FaceChoice faces={faces} faceUrl={face.image.dataUrl} targetUrl={target.image.dataUrl} />
        )}
        <div className="tool-actions tool-actions-split">
          <Checkbox checked={consent} onChange={(e) => setConsent(e.target.checked)}>
            {CONSENT_TEXT}
          </Checkbox>
          {!ready && (
            <Typography.Text type="secondary">
              Choose a folder, a face and a target image to swap.
            </Typography.Text>
          )}
          {ready && (
            <Button
              type="primary"
              size="large"
              icon={<SwapOutlined />}
              disabled={!consent || busy || !accepted}
              onClick={() =>
                void swap({
                  face: face.image!,
                  target: target.image!,
                  folder: folder!,
                  cost: faces.check?.price ?? quoteTool('faceSwap', 1),
                  ...faces.choice,
                })
              }
            >
              {busy ? 'Loading...' : 'Swap'}
            </Button>
          )}
        </div>
      </Card>
    </ToolFrame>
  );
}

/** What the free check found: the faces on both pictures to click, warnings, problems, price. */
function FaceChoice({
  faces,
  faceUrl,
  targetUrl,
}: {
  faces: ReturnType<typeof useFaceCheck>;
  faceUrl: string;
  targetUrl: string;
}) {
  const { check, error, checking, choice, verdict } = faces;
  if (checking) {
    return (
      <div className="face-check" data-testid="face-check">
        <Spin size="small" /> <Typography.Text>Looking for faces (free)…</Typography.Text>
      </div>
    );
  }
  if (error) return <Alert className="face-check" type="error" showIcon message={error} />;
  if (!check || !verdict) return null;
  const chosen = choice.targetFaces.map((i) => i + 1).join(', ');
  return (
    <div className="face-check" data-testid="face-check">
      <Typography.Title level={5}>Faces found</Typography.Title>
      <Typography.Paragraph type="secondary">
        {check.source.faces.length} in the face image, {check.target.faces.length} in the target. Click a face
        to choose it: one face of the face image, one or more faces of the target.
      </Typography.Paragraph>
      <Row gutter={[24, 16]}>
        <Col xs={24} md={12}>
          <FacePicker
            side="Source"
            imageUrl={faceUrl}
            report={check.source}
            chosen={[choice.sourceFace]}
            onPick={faces.chooseSource}
          />
        </Col>
        <Col xs={24} md={12}>
          <FacePicker
            side="Target"
            imageUrl={targetUrl}
            report={check.target}
            chosen={choice.targetFaces}
            onPick={faces.toggleTarget}
          />
          {check.target.faces.length > 1 && (
            <div>
              <Button size="small" onClick={faces.chooseAllTargets}>
                All faces
              </Button>
            </div>
          )}
        </Col>
      </Row>
      <Space direction="vertical" style={{ width: '100%', marginTop: 12 }}>
        {verdict.ok && (
          <Typography.Text data-testid="face-check-summary">
            Face {choice.sourceFace + 1} goes onto target face{choice.targetFaces.length > 1 ? 's' : ''}{' '}
            {chosen} · Price: {check.price} credit{check.price === 1 ? '' : 's'} (charged only when you swap)
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
