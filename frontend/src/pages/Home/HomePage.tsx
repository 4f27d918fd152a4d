import { Button, Card, Space, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../../config';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';

/** Welcome screen at '/', until the Clone screen takes this route. */
export function HomePage() {
  const { loggedIn, account } = useSession();
  return (
    <Card style={{ textAlign: 'center', padding: '32px 0' }}>
      <Typography.Title>Welcome to {PRODUCT_NAME}</Typography.Title>
      <Typography.Paragraph type="secondary" style={{ fontSize: 17 }}>
        Generate, inpaint, upscale, clone and face-swap images and video with AI. Every tool spends coins from
        your balance, and your results land in folders on your profile.
      </Typography.Paragraph>
      {loggedIn ? (
        <Space direction="vertical">
          <Typography.Text>Signed in as {account}. Pick a tool from the account menu.</Typography.Text>
          <Link to={Paths.profile}>
            <Button type="primary" size="large">
              Go to your profile
            </Button>
          </Link>
        </Space>
      ) : (
        <Space size="middle">
          <Link to={Paths.register}>
            <Button type="primary" size="large">
              Create an account
            </Button>
          </Link>
          <Link to={Paths.login}>
            <Button size="large">Log in</Button>
          </Link>
        </Space>
      )}
    </Card>
  );
}
