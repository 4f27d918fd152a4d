import { ReloadOutlined } from '@ant-design/icons';
import { TOOL_LABELS, type ToolEngineStatus } from '@studio/contracts';
import { Button, Card, Table, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText } from '../../api/client';

const KIND_LABELS: Record<string, string> = {
  local: 'Local CPU',
  a1111: 'Automatic1111',
  comfyui: 'ComfyUI',
  replicate: 'Replicate',
};

/** Per tool: which engine runs it, whether its server answers (GPU, free VRAM), and the queues. */
export function EnginesCard() {
  const [rows, setRows] = useState<ToolEngineStatus[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    const result = await apiGet<ToolEngineStatus[]>('/admin/engines');
    setLoading(false);
    const content = result.body?.content;
    if (result.ok && Array.isArray(content)) {
      setRows(content);
      setError(null);
    } else {
      setError(errorText(result));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Card
      size="small"
      title="Engines"
      data-testid="engines-card"
      extra={
        <Button size="small" icon={<ReloadOutlined />} loading={loading} onClick={() => void load()}>
          Check again
        </Button>
      }
    >
      {error && <Typography.Text type="danger">{error}</Typography.Text>}
      <Table<ToolEngineStatus>
        size="small"
        pagination={false}
        scroll={{ x: 'max-content' }}
        rowKey="tool"
        loading={loading && !rows}
        dataSource={rows ?? []}
        columns={[
          { title: 'Tool', dataIndex: 'tool', render: (tool: ToolEngineStatus['tool']) => TOOL_LABELS[tool] },
          {
            title: 'Engine',
            dataIndex: 'kind',
            // Honest: a tool its configured engine cannot do has no engine (Generate on the CPU).
            render: (kind: string, row) =>
              row.available ? (
                (KIND_LABELS[kind] ?? kind)
              ) : (
                <span data-testid={`engine-none-${row.tool}`}>
                  None{kind === 'local' ? ' (the local CPU engine cannot do this)' : ''}
                </span>
              ),
          },
          { title: 'Status', key: 'status', render: (_, row) => <EngineState row={row} /> },
          {
            title: 'Queue',
            key: 'queue',
            render: (_, row) => (
              <span data-testid={`engine-queue-${row.tool}`}>
                {row.queue.waiting} waiting, {row.queue.active} running
                {row.remoteQueue &&
                  ` (server: ${row.remoteQueue.running} running, ${row.remoteQueue.pending} pending)`}
              </span>
            ),
          },
        ]}
      />
    </Card>
  );
}

/** Remote readiness: the first obstacle to this tool's jobs, as an operator reads it. */
const READINESS: Record<NonNullable<ToolEngineStatus['readiness']>, { label: string; color: string }> = {
  ready: { label: 'Ready', color: 'green' },
  models_missing: { label: 'Models missing', color: 'orange' },
  unauthorised: { label: 'Credentials refused', color: 'red' },
  unreachable: { label: 'Does not answer', color: 'red' },
};

function EngineState({ row }: { row: ToolEngineStatus }) {
  if (!row.available) return <Tag>Not available</Tag>;
  if (row.reachable === undefined) return <Tag color="blue">Ready</Tag>;
  const readiness = row.readiness && READINESS[row.readiness];
  return (
    <span data-testid={`engine-state-${row.tool}`}>
      <Tag color={row.reachable ? 'green' : 'red'}>{row.reachable ? 'Answers' : 'Does not answer'}</Tag>
      {readiness && row.readiness !== 'unreachable' && <Tag color={readiness.color}>{readiness.label}</Tag>}
      <Typography.Text type={row.reachable ? 'secondary' : 'danger'}>{row.detail}</Typography.Text>
      {row.missing && row.missing.length > 0 && (
        <Typography.Text type="warning" data-testid={`engine-missing-${row.tool}`}>
          {' '}
          Missing: {row.missing.join(', ')}
        </Typography.Text>
      )}
    </span>
  );
}
