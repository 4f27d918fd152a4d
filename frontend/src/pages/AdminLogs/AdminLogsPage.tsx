import { LOG_PAGE_SIZE, SocketEvents } from '@studio/contracts';
import { Card, Flex, Space, Spin, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { ADMIN_ONLY, RequireRole } from '../../admin/RequireRole';
import { useResync, useSocketEvent } from '../../realtime/useRealtime';
import { LogFiltersBar } from './LogFiltersBar';
import { LogTable } from './LogTable';
import { AllowanceTotals } from './AllowanceTotals';
import { StatsTotals } from './StatsTotals';
import { useAdminStats } from './useAdminStats';
import { useAuditLog, type LogFilters } from './useAuditLog';

// The chart library is large: load it only when an admin opens this screen.
const FaceSwapChart = lazy(() => import('./FaceSwapChart'));

/** /admin/logs: face swaps per day, credit totals and the activity log, updated live. */
export function AdminLogsPage() {
  return (
    <RequireRole roles={ADMIN_ONLY}>
      <AdminLogs />
    </RequireRole>
  );
}

function AdminLogs() {
  const [filters, setFilters] = useState<LogFilters>({});
  // Keyset paging: the cursors of the pages above the one shown (empty on the newest page).
  const [paging, setPaging] = useState({
    cursors: [] as string[],
    pageSize: LOG_PAGE_SIZE.default as number,
  });
  const { stats, loading: statsLoading, reloadSoon } = useAdminStats();
  const log = useAuditLog(filters, paging.cursors.at(-1), paging.pageSize);

  useSocketEvent(SocketEvents.auditAppended, (entry) => {
    log.prepend(entry);
    reloadSoon();
  });
  // Entries appended while the socket was away (reconnecting, or the studio briefly down) were
  // never pushed here: read the page and the totals again.
  useResync(() => {
    log.reload();
    reloadSoon();
  });

  const onFiltersChange = (next: LogFilters) => {
    setFilters(next);
    setPaging((current) => ({ ...current, cursors: [] }));
  };

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Logs
      </Typography.Title>
      <Card title="Face swaps per day" size="small">
        <Suspense fallback={<Spin style={{ display: 'block', margin: '120px auto' }} />}>
          <FaceSwapChart stats={stats} />
        </Suspense>
      </Card>
      <StatsTotals totals={stats.totals} loading={statsLoading} />
      <AllowanceTotals />
      <Card size="small" title="Activity">
        <Flex gap="small" wrap style={{ marginBottom: 16 }}>
          <LogFiltersBar value={filters} onChange={onFiltersChange} />
        </Flex>
        <LogTable
          data={log.data}
          loading={log.loading}
          pageNumber={paging.cursors.length + 1}
          onNewer={() => setPaging((current) => ({ ...current, cursors: current.cursors.slice(0, -1) }))}
          onOlder={() => {
            const next = log.data.next;
            if (next) setPaging((current) => ({ ...current, cursors: [...current.cursors, next] }));
          }}
          onPageSizeChange={(pageSize) => setPaging({ cursors: [], pageSize })}
        />
      </Card>
    </Space>
  );
}
