import { ALTERING_TOOLS, TOOL_LABELS, type ContentItem } from '@studio/contracts';
import { Tag, Tooltip } from 'antd';

const ALTERING_TITLES = ALTERING_TOOLS.map((tool) => TOOL_LABELS[tool]);

/** An output of a face swap (image or video): its title is the tool's, numbered when several. */
export function isAltered(item: ContentItem): boolean {
  if (!item.jobId) return false;
  const title = item.title ?? '';
  return ALTERING_TITLES.some((label) => title === label || title.startsWith(`${label} `));
}

/**
 * The visible disclosure of an output (EU AI Act Art. 50): "AI-generated", or "AI-altered" for a
 * face swap. Items made by a job only; the file itself also carries a signed C2PA manifest and an
 * invisible watermark (docs/provenance.md).
 */
export function ProvenanceLabel({ item, className }: { item: ContentItem; className?: string }) {
  if (!item.jobId) return null;
  const altered = isAltered(item);
  return (
    <Tooltip
      title={
        altered
          ? 'A real picture altered by AI (face swap). The file carries a signed content credential.'
          : 'Made with AI. The file carries a signed content credential.'
      }
    >
      <Tag
        className={className}
        color={altered ? 'orange' : 'geekblue'}
        data-testid="ai-label"
        style={{ marginInlineEnd: 0 }}
      >
        {altered ? 'AI-altered' : 'AI-generated'}
      </Tag>
    </Tooltip>
  );
}
