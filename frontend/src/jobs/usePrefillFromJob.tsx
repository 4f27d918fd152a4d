import { API_PREFIX, JobMessages, TOOL_LABELS, type JobTool, type JobView } from '@studio/contracts';
import { Alert, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { formatLocalDateTime } from '../admin/format';
import { apiGet, errorText } from '../api/client';
import { FROM_JOB_PARAM } from './jobPaths';

/** What "Edit and run" brings to a tool screen: the job and its stored inputs, in order. */
export interface Prefill {
  job: JobView;
  /** GET /api/jobs/:id/inputs/0..inputCount-1 as files the screen's pickers take. */
  files: File[];
}

export type PrefillState =
  | { status: 'none' }
  | { status: 'loading' }
  | { status: 'ready'; job: JobView }
  | { status: 'failed'; text: string };

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

/** One stored input of the job as a file; a refusal carries the server's words. */
async function fetchInput(jobId: string, index: number): Promise<File | string> {
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}/jobs/${encodeURIComponent(jobId)}/inputs/${index}`, {
      credentials: 'include',
    });
  } catch {
    return JobMessages.inputsGone;
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { content?: unknown } | null;
    return typeof body?.content === 'string' ? body.content : JobMessages.inputsGone;
  }
  const blob = await response.blob();
  const type = blob.type || response.headers?.get('Content-Type') || '';
  const extension = EXTENSIONS[type.split(';')[0]] ?? 'bin';
  return new File([blob], `input-${index}.${extension}`, { type });
}

/**
 * "Edit and run" on a tool screen: with `?from=<jobId>` in the address, reads that job (it must be
 * one of this tool's) and its stored inputs, and hands them to `apply` once, which fills the form.
 */
export function usePrefillFromJob(tool: JobTool, apply: (prefill: Prefill) => void): PrefillState {
  const [params] = useSearchParams();
  const jobId = params.get(FROM_JOB_PARAM);
  const [state, setState] = useState<PrefillState>({ status: jobId ? 'loading' : 'none' });
  const latestApply = useRef(apply);
  latestApply.current = apply;

  useEffect(() => {
    if (!jobId) {
      setState({ status: 'none' });
      return;
    }
    let current = true;
    setState({ status: 'loading' });
    void (async () => {
      const result = await apiGet<JobView>(`/jobs/${encodeURIComponent(jobId)}`);
      const job = result.ok ? result.body?.content : undefined;
      if (!current) return;
      if (!job || typeof job !== 'object') {
        setState({ status: 'failed', text: errorText(result) });
        return;
      }
      if (job.tool !== tool) {
        setState({ status: 'failed', text: `That job was made with ${TOOL_LABELS[job.tool]}.` });
        return;
      }
      const inputs = await Promise.all(
        Array.from({ length: job.inputCount }, (_, index) => fetchInput(job._id, index)),
      );
      if (!current) return;
      const refused = inputs.find((input): input is string => typeof input === 'string');
      if (refused !== undefined) {
        setState({ status: 'failed', text: refused });
        return;
      }
      latestApply.current({ job, files: inputs as File[] });
      setState({ status: 'ready', job });
    })();
    return () => {
      current = false;
    };
  }, [jobId, tool]);

  return state;
}

/** Says above the form where its values came from, or why they could not be brought. */
export function PrefillNotice({ state }: { state: PrefillState }) {
  if (state.status === 'none') return null;
  if (state.status === 'loading') {
    return (
      <Alert
        type="info"
        showIcon
        icon={<Spin size="small" />}
        message="Bringing in the job's inputs and settings…"
        data-testid="prefill-notice"
      />
    );
  }
  if (state.status === 'failed') {
    return (
      <Alert
        type="warning"
        showIcon
        message={`The job could not be brought in: ${state.text}`}
        data-testid="prefill-notice"
      />
    );
  }
  return (
    <Alert
      type="info"
      showIcon
      closable
      message={`Filled in from your job of ${formatLocalDateTime(state.job.createdAt)}: change what you like, then run it.`}
      data-testid="prefill-notice"
    />
  );
}
