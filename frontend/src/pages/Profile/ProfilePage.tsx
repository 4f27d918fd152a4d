import type { FolderChange, ProfileContent } from '@studio/contracts';
import { Button, Flex, Result, Space, Spin, Typography } from 'antd';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';
import { CreateFolderButton } from './CreateFolderButton';
import { FolderList } from './FolderList';
import { ProfileBadge } from './ProfileBadge';
import { useProfile } from './useProfile';

/** Profile (spec section 2): the route's name, else the own account, else back home. */
export function ProfilePage() {
  const { username } = useParams();
  const { account } = useSession();
  const navigate = useNavigate();
  const name = username || account;
  const state = useProfile(name);

  useEffect(() => {
    if (!name) navigate(Paths.home, { replace: true });
  }, [name, navigate]);

  if (!name) return null;
  switch (state.status) {
    case 'loading':
      return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
    case 'notFound':
      return <Result status="404" title="User not found" extra={<HomeButton />} />;
    case 'failed':
      return <Result status="warning" title={state.text} extra={<HomeButton />} />;
    case 'ready':
      return (
        <ProfileView profile={state.profile} onReload={state.reload} onFolderChange={state.changeFolders} />
      );
  }
}

function ProfileView({
  profile,
  onReload,
  onFolderChange,
}: {
  profile: ProfileContent;
  onReload(): void;
  onFolderChange(change: FolderChange): void;
}) {
  const navigate = useNavigate();
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Flex align="center" justify="space-between" wrap gap="middle">
        <Space align="center">
          <Typography.Title level={2} style={{ margin: 0 }}>
            {profile.username}
          </Typography.Title>
          <ProfileBadge verified={profile.verified} early={profile.early} />
        </Space>
        {profile.own && (
          <Space>
            <Button onClick={() => navigate(Paths.account)}>Account</Button>
            <Button onClick={() => navigate(Paths.inpaints(profile.username))}>Inpaints</Button>
          </Space>
        )}
      </Flex>
      {profile.own && (
        <FolderList
          folders={profile.folders}
          onChange={onFolderChange}
          extra={<CreateFolderButton onCreated={onReload} />}
        />
      )}
    </Space>
  );
}

function HomeButton() {
  const navigate = useNavigate();
  return (
    <Button type="primary" onClick={() => navigate(Paths.home)}>
      Homepage
    </Button>
  );
}
