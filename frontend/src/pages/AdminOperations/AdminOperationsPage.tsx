import { LinkOutlined } from '@ant-design/icons';
import { JobTools, QUEUE_BOARD_PATH, type FeatureFlags, type SetFlagsRequest } from '@studio/contracts';
import { Button, Card, Col, Flex, Row, Space, Spin, Switch, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { apiPut, errorText } from '../../api/client';
import { ADMIN_ONLY, RequireRole } from '../../admin/RequireRole';
import { useOperations } from '../../operations/useOperations';
import { useToast } from '../../ui/toast';
import { EnginesCard } from './EnginesCard';
import { NoticeEditor } from './NoticeEditor';
import { TakedownCard } from './TakedownCard';

/** /admin/operations: feature flags, maintenance notices per tool, content takedowns and the queue board. */
export function AdminOperationsPage() {
  return (
    <RequireRole roles={ADMIN_ONLY}>
      <AdminOperations />
    </RequireRole>
  );
}

function AdminOperations() {
  const operations = useOperations();

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={2} style={{ margin: 0 }}>
          Operations
        </Typography.Title>
        <Button icon={<LinkOutlined />} href={QUEUE_BOARD_PATH} target="_blank" rel="noopener noreferrer">
          Queue board
        </Button>
      </Flex>
      {!operations.loaded ? (
        <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />
      ) : (
        <>
          <FlagsCard flags={operations.flags} />
          <EnginesCard />
          <Typography.Title level={4} style={{ margin: 0 }}>
            Maintenance notices
          </Typography.Title>
          <Row gutter={[16, 16]}>
            {JobTools.map((tool) => (
              <Col key={tool} xs={24} md={12} xl={8}>
                <NoticeEditor
                  tool={tool}
                  notice={operations.notices.find((notice) => notice.tool === tool)}
                />
              </Col>
            ))}
          </Row>
          <Typography.Title level={4} style={{ margin: 0 }}>
            Content
          </Typography.Title>
          <Row gutter={[16, 16]}>
            <Col xs={24} lg={12}>
              <TakedownCard />
            </Col>
          </Row>
        </>
      )}
    </Space>
  );
}

/** Feature flags, each saved at once with PUT /api/admin/flags. */
function FlagsCard({ flags }: { flags: FeatureFlags }) {
  const toast = useToast();
  const [busy, setBusy] = useState<keyof FeatureFlags | null>(null);
  // What this admin just saved, shown until the server's 'operations.changed' push confirms it.
  const [saved, setSaved] = useState<SetFlagsRequest>({});
  const shown: FeatureFlags = { ...flags, ...saved };

  useEffect(() => {
    setSaved({});
  }, [flags]);

  const set = async (flag: keyof FeatureFlags, on: boolean) => {
    setBusy(flag);
    const payload: SetFlagsRequest = { [flag]: on };
    const result = await apiPut('/admin/flags', payload);
    setBusy(null);
    if (result.ok) {
      setSaved((known) => ({ ...known, ...payload }));
      toast.success(`Video face swap ${on ? 'on' : 'off'}`);
    } else {
      toast.error(errorText(result));
    }
  };

  return (
    <Card size="small" title="Feature flags">
      <Space>
        <Switch
          aria-label="Video face swap"
          checked={shown.videoFaceSwap}
          loading={busy === 'videoFaceSwap'}
          onChange={(on) => void set('videoFaceSwap', on)}
        />
        <Typography.Text>Video face swap (BETA)</Typography.Text>
      </Space>
    </Card>
  );
}
