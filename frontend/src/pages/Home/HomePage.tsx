import { CopyOutlined } from '@ant-design/icons';
import { CLONE_AMOUNT, Messages, quoteTool, TOOL_PRICES, type JobSubmitContent } from '@studio/contracts';
import { Button } from 'antd';
import { useState } from 'react';
import '../../compare/compare.css';
import { useNavigate } from 'react-router-dom';
import { AllowanceNotice } from '../../allowance/AllowanceNotice';
import { useAllowance } from '../../allowance/useAllowance';
import { apiUpload } from '../../api/client';
import { usePickedImage } from '../../images/usePickedImage';
import type { TrayJob } from '../../jobs/jobsState';
import { PrefillNotice, usePrefillFromJob } from '../../jobs/usePrefillFromJob';
import { useJobSubmission } from '../../jobs/useJobSubmission';
import { ToolNotices } from '../../operations/ToolNotices';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';
import { ImageDropzone } from '../../ui/ImageDropzone';
import { onDemand, useWantedOnce } from '../../ui/onDemand';
import { ToolCard } from '../../ui/ToolCard';
import { ToolFrame } from '../../ui/ToolFrame';
import { useToast } from '../../ui/toast';
import { WelcomeBanner } from './WelcomeBanner';

// The two dialogs download when first opened: the first load carries only the form.
const CloneAmountModal = onDemand(() => import('./CloneAmountModal').then((m) => m.CloneAmountModal));
const JobModal = onDemand(() => import('../../jobs/JobModal').then((m) => m.JobModal));

/** Clones shown in the modal; the rest are in the folder. */
const SHOWN_CLONES = 12;

/** The home screen is the Clone tool (spec section 2), with a welcome for logged-out visitors. */
export function HomePage() {
  const { account, balance } = useSession();
  const navigate = useNavigate();
  const toast = useToast();
  const { image, reading, pick } = usePickedImage();
  const submission = useJobSubmission();
  const allowance = useAllowance();
  const [asking, setAsking] = useState(false);
  const [amount, setAmount] = useState<number | null>(CLONE_AMOUNT.min);
  const prefill = usePrefillFromJob('clone', ({ job, files }) => {
    if (files[0]) void pick(files[0]);
    if (job.settings.amount) setAmount(job.settings.amount);
  });
  const amountWanted = useWantedOnce(asking);
  const progressWanted = useWantedOnce(submission.state.phase !== 'idle');

  const sendToLogin = () => {
    toast.error(Messages.needLogin);
    navigate(Paths.login);
  };

  const openAmount = () => {
    if (account) setAsking(true);
    else sendToLogin();
  };

  const generate = async () => {
    if (!account) return sendToLogin();
    if (!image || !amount) return;
    if (quoteTool('clone', amount) > (balance ?? 0)) {
      toast.error(Messages.notEnoughCredits);
      return;
    }
    setAsking(false);
    const form = new FormData();
    form.append('original', image.blob, image.fileName);
    form.append('amount', String(amount));
    form.append('author', account);
    await submission.submit((headers) =>
      apiUpload<JobSubmitContent | string>('/generateNoise', form, headers),
    );
  };

  return (
    <>
      {!account && <WelcomeBanner />}
      <ToolFrame
        title="Clone"
        description="Make noise-altered copies of an image, each one unique down to the pixel."
        price={`${TOOL_PRICES.clone} credit per clone`}
      >
        {account && <AllowanceNotice status={allowance} />}
        {account && <ToolNotices tool="clone" />}
        {account && <PrefillNotice state={prefill} />}
        <ToolCard>
          <ImageDropzone
            text="Drag a file or click here..."
            hint="JPEG, PNG or WebP. Large images are scaled to 1024 px per side."
            label="Image to clone"
            image={image}
            reading={reading}
            onFile={(file) => void pick(file)}
            height={340}
          />
          <div className="tool-actions">
            <Button
              type="primary"
              size="large"
              icon={<CopyOutlined />}
              disabled={!image || submission.busy}
              onClick={openAmount}
            >
              Clone
            </Button>
          </div>
        </ToolCard>
      </ToolFrame>
      {amountWanted && (
        <CloneAmountModal
          open={asking}
          amount={amount}
          balance={balance}
          onAmount={setAmount}
          onCancel={() => setAsking(false)}
          onGenerate={() => void generate()}
        />
      )}
      {progressWanted && (
        <JobModal
          submission={submission}
          closableWhileGenerating
          width={720}
          renderResult={(job) => <CloneGrid job={job} />}
        />
      )}
    </>
  );
}

function CloneGrid({ job }: { job: TrayJob }) {
  const shown = job.items.slice(0, SHOWN_CLONES);
  const more = job.items.length - shown.length;
  return (
    <div className="clone-grid" data-testid="clone-results">
      {shown.map((item, index) => (
        <CloneThumb key={item._id} src={item.url} alt={`Clone ${index + 1}`} />
      ))}
      {more > 0 && <div className="clone-grid-more">+{more} more in the folder</div>}
    </div>
  );
}

/** A clone in the result grid: its square is there at once, shimmering until the image has loaded. */
function CloneThumb({ src, alt }: { src: string; alt: string }) {
  const [loaded, setLoaded] = useState(false);
  return <img src={src} alt={alt} data-loaded={loaded} onLoad={() => setLoaded(true)} />;
}
