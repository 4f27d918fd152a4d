import { SmileOutlined, SwapOutlined, UserOutlined } from '@ant-design/icons';
import { quoteTool, TOOL_PRICES } from '@studio/contracts';
import { Button, Card, Checkbox, Col, Row, Typography } from 'antd';
import { useState } from 'react';
import { ParentFolderField } from '../../folders/ParentFolderField';
import { useOwnFolders } from '../../folders/useOwnFolders';
import { usePickedImage } from '../../images/usePickedImage';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { ToolNotices } from '../../operations/ToolNotices';
import { useRequireLogin } from '../../session/useRequireLogin';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { ToolFrame } from '../../ui/ToolFrame';
import { useFaceSwap } from './useFaceSwap';

export const CONSENT_TEXT = 'I have the consent of the person whose face I use';

/** Face swap (spec section 2): folder, face image, target image, consent, then 'Swap'. */
export function FaceSwapPage() {
  return useRequireLogin({ explain: true }) ? <FaceSwapScreen /> : null;
}

function FaceSwapScreen() {
  const { folders, loading } = useOwnFolders();
  const face = usePickedImage();
  const target = usePickedImage();
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
  return (
    <ToolFrame
      title="Face swap"
      description="Put the face from one image onto the person in another."
      price={`${TOOL_PRICES.faceSwap} credit per swap`}
    >
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
              disabled={!consent || busy}
              onClick={() =>
                void swap({
                  face: face.image!,
                  target: target.image!,
                  folder: folder!,
                  cost: quoteTool('faceSwap', 1),
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
