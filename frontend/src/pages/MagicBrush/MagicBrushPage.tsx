import { BgColorsOutlined, ClearOutlined, FolderOpenOutlined, PictureOutlined } from '@ant-design/icons';
import { BRUSH_SIZE, CANVAS_ZOOM, TOOL_PRICES } from '@studio/contracts';
import { Alert, Button, Card, Slider, Typography, Upload } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { useOwnFolders } from '../../folders/useOwnFolders';
import { ACCEPTED_IMAGE_TYPES } from '../../images/imageTypes';
import { scaleImage } from '../../images/scaleImage';
import { ResultImage } from '../../compare/ResultImage';
import { usePickedImage } from '../../images/usePickedImage';
import { JobModal } from '../../jobs/JobModal';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { NoticeAlerts } from '../../operations/NoticeAlerts';
import { AgeCheckNotice } from '../../ui/AgeCheckNotice';
import { useOperations } from '../../operations/useOperations';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { HEADER_HEIGHT, MASK_VIEWPORT_MARGIN } from '../../ui/theme';
import { ToolFrame } from '../../ui/ToolFrame';
import { useToast } from '../../ui/toast';
import { emptyInpaintForm, InpaintTexts, type ExtraImage, type InpaintForm } from './inpaintForm';
import { InpaintModal } from './InpaintModal';
import { MaskCanvas, type MaskCanvasHandle } from './MaskCanvas';
import { useInpaint, type StartedBatch } from './useInpaint';

/** Width the image may take in the card before zooming out is needed. */
const STAGE_WIDTH = 832;

/**
 * The height the mask viewport may take: the window below the sticky header, less a margin.
 * styles.css gives .mask-viewport the same max-height.
 */
export function maskViewportHeight(windowHeight: number): number {
  return Math.max(0, windowHeight - HEADER_HEIGHT - MASK_VIEWPORT_MARGIN);
}

const clampZoom = (zoom: number) =>
  Math.min(CANVAS_ZOOM.max, Math.max(CANVAS_ZOOM.min, Math.round(zoom * 100) / 100));

/**
 * Magic Brush (spec section 2): pick an image, paint a white mask over what should change, then
 * 'Inpaint' with a prompt, as a single image or a bulk batch into a folder.
 */
export function MagicBrushPage() {
  return useRequireLogin({ explain: true }) ? <MagicBrushScreen /> : null;
}

function MagicBrushScreen() {
  const { balance } = useSession();
  const toast = useToast();
  const operations = useOperations();
  const { folders, loading: foldersLoading } = useOwnFolders();
  const { image, reading, pick } = usePickedImage();
  const mask = useRef<MaskCanvasHandle>(null);
  const [brushSize, setBrushSize] = useState<number>(BRUSH_SIZE.default);
  const [zoom, setZoom] = useState(1);
  const [painted, setPainted] = useState(false);
  const [asking, setAsking] = useState(false);
  const [form, setForm] = useState<InpaintForm>(emptyInpaintForm);
  const [batch, setBatch] = useState<StartedBatch | null>(null);
  const stage = useRef<HTMLDivElement>(null);
  // "Edit and run": the stored mask goes onto the stored image once it is shown.
  const [startMask, setStartMask] = useState<Blob | null>(null);
  const prefill = usePrefillFromJob('inpaint', ({ job, files }) => {
    if (files[0]) void pick(files[0]);
    setStartMask(files[1] ?? null);
    setForm((current) => ({
      ...current,
      prompt: job.settings.prompt ?? current.prompt,
      folder: job.batch ? job.folderId : current.folder,
    }));
  });

  // The CPU engine fills from the picture around the mask and ignores a prompt: none is asked for.
  const promptUsed = !(operations.loaded && operations.engines?.inpaint === 'local');
  const { submission, single, bulk, bulkBusy } = useInpaint(promptUsed, (started) => {
    setBatch(started);
    setAsking(false);
    // Clears the result and the added files (spec section 4); the image and its mask stay.
    setForm((current) => ({ ...emptyInpaintForm, prompt: current.prompt, folder: current.folder }));
  });

  const choose = (file: File) => {
    setStartMask(null);
    void pick(file);
  };

  // A new image: a fresh mask, zoomed to fit the card's width and the window's height below the
  // header, so a portrait image is painted whole without scrolling (the user's zoom from then on).
  useEffect(() => {
    if (!image) return;
    setPainted(false);
    const width = stage.current?.clientWidth || STAGE_WIDTH;
    const height = maskViewportHeight(window.innerHeight);
    const fit = Math.min(1, width / image.width, height / image.height);
    // Rounded down: rounding up to the slider's step would make the image a few pixels too tall.
    setZoom(clampZoom(Math.floor(fit * 100) / 100));
  }, [image]);

  const addFiles = async (files: File[]) => {
    const added: ExtraImage[] = [];
    for (const file of files) {
      try {
        added.push({ name: file.name, image: await scaleImage(file) });
      } catch {
        toast.error(`${file.name}: not an image`);
      }
    }
    setForm((current) => ({ ...current, extras: [...current.extras, ...added] }));
  };

  const input = () => ({ image: image!, mask: () => mask.current!.toPng(), form });
  const submitSingle = async () => {
    if (await single(input())) setAsking(false);
  };

  const submitBulk = async () => {
    if (await bulk(input())) setAsking(false);
  };

  return (
    <ToolFrame
      title="Magic Brush"
      description={promptUsed ? InpaintTexts.describeWithPrompt : InpaintTexts.describeWithoutPrompt}
      price={`${TOOL_PRICES.inpaint} credit per image`}
    >
      <AgeCheckNotice />
      <NoticeAlerts operations={operations} tool="inpaint" />
      <PrefillNotice state={prefill} />
      {!promptUsed && (
        <Alert type="info" showIcon data-testid="prompt-unused" message={InpaintTexts.promptUnused} />
      )}
      {batch && (
        <Alert
          type="success"
          showIcon
          closable
          onClose={() => setBatch(null)}
          message={`${InpaintTexts.bulkProcessing}: ${batch.title}`}
          description={
            <span>
              {batch.jobs} {batch.jobs === 1 ? 'image is' : 'images are'} being inpainted.{' '}
              <Link to={Paths.bulkInpaints(batch.folderId)} data-testid="batch-folder">
                <FolderOpenOutlined /> Open the folder
              </Link>
            </span>
          }
          data-testid="bulk-started"
        />
      )}
      <Card className="tool-card">
        {!image ? (
          <ImageDropzone
            text="Drop an image or click here..."
            hint="JPEG, PNG or WebP. Large images are scaled to 1024 px per side."
            label="Image to inpaint"
            image={null}
            reading={reading}
            onFile={(file) => choose(file)}
            height={340}
          />
        ) : (
          <>
            <div className="mask-toolbar">
              <div className="mask-control">
                <span id="brush-size-label">Brush size</span>
                <Slider
                  min={BRUSH_SIZE.min}
                  max={BRUSH_SIZE.max}
                  value={brushSize}
                  onChange={setBrushSize}
                  ariaLabelledByForHandle="brush-size-label"
                />
                <span className="mask-control-value" data-testid="brush-size">
                  {brushSize}
                </span>
              </div>
              <div className="mask-control">
                <span id="zoom-label">Zoom</span>
                <Slider
                  min={CANVAS_ZOOM.min}
                  max={CANVAS_ZOOM.max}
                  step={0.01}
                  value={zoom}
                  onChange={(value) => setZoom(clampZoom(value))}
                  tooltip={{ formatter: (value) => `${Math.round((value ?? 1) * 100)}%` }}
                  ariaLabelledByForHandle="zoom-label"
                />
                <span className="mask-control-value" data-testid="zoom">
                  {Math.round(zoom * 100)}%
                </span>
              </div>
              <Button icon={<ClearOutlined />} onClick={() => mask.current?.clear()} disabled={!painted}>
                Clear mask
              </Button>
              <Upload
                accept={ACCEPTED_IMAGE_TYPES}
                showUploadList={false}
                beforeUpload={(file) => {
                  choose(file);
                  return Upload.LIST_IGNORE;
                }}
              >
                <Button icon={<PictureOutlined />}>Other image</Button>
              </Upload>
            </div>
            <div className="mask-viewport" ref={stage}>
              <MaskCanvas
                key={image.dataUrl}
                ref={mask}
                image={image}
                brushSize={brushSize}
                zoom={zoom}
                onPaintedChange={setPainted}
                initialMask={startMask}
              />
            </div>
          </>
        )}
        <div className="tool-actions tool-actions-split">
          <Typography.Text type="secondary">
            {image
              ? `${InpaintTexts.paintFirst} ${image.width} × ${image.height} px.`
              : 'Choose an image to start.'}
          </Typography.Text>
          <Button
            type="primary"
            size="large"
            icon={<BgColorsOutlined />}
            disabled={!image || !painted || submission.busy}
            onClick={() => setAsking(true)}
          >
            Inpaint
          </Button>
        </div>
      </Card>
      <InpaintModal
        open={asking}
        form={form}
        folders={folders}
        foldersLoading={foldersLoading}
        balance={balance}
        busy={bulkBusy || submission.busy}
        onChange={(patch) => setForm((current) => ({ ...current, ...patch }))}
        onAddFiles={(files) => void addFiles(files)}
        onCancel={() => setAsking(false)}
        onSingle={() => void submitSingle()}
        onBulk={() => void submitBulk()}
        promptUsed={promptUsed}
      />
      <JobModal
        submission={submission}
        width={720}
        renderResult={(job, url) => {
          const src = url ?? job.items[0]?.url;
          return src ? (
            <ResultImage
              src={src}
              alt="Inpaint result"
              aspect={image ? image.width / image.height : undefined}
            />
          ) : null;
        }}
      />
    </ToolFrame>
  );
}
