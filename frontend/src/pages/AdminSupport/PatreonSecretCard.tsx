import { Button, Card, List, Typography } from 'antd';
import { useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

/** Admins issue one-time Patreon secrets (POST /api/admin/patreonSecrets) to send to patrons. */
export function PatreonSecretCard() {
  const toast = useToast();
  const [secrets, setSecrets] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const issue = async () => {
    setBusy(true);
    const result = await apiPost<string[]>('/admin/patreonSecrets', { count: 1 });
    setBusy(false);
    const content = result.body?.content;
    if (result.ok && Array.isArray(content)) setSecrets((known) => [...content, ...known]);
    else toast.error(errorText(result));
  };

  return (
    <Card
      size="small"
      title="Patreon secrets"
      extra={
        <Button onClick={() => void issue()} loading={busy}>
          Issue secret
        </Button>
      }
    >
      {secrets.length === 0 ? (
        <Typography.Text type="secondary">One-time secrets issued here appear in this list.</Typography.Text>
      ) : (
        <List
          size="small"
          dataSource={secrets}
          renderItem={(secret) => (
            <List.Item>
              <Typography.Text code copyable data-testid="patreon-secret">
                {secret}
              </Typography.Text>
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}
