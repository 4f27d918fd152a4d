import { Button, Space } from 'antd';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../../config';
import { Paths } from '../../paths';
import { PlainText, PlainTitle } from '../../ui/PlainTypography';

/** What a logged-out visitor of the home screen sees above the Clone tool. */
export function WelcomeBanner() {
  return (
    <div className="welcome-banner">
      <div className="welcome-banner-text">
        <PlainTitle level={3} style={{ color: '#fff' }}>
          Welcome to {PRODUCT_NAME}
        </PlainTitle>
        <PlainText style={{ color: 'rgba(255,255,255,0.8)' }}>
          Generate, inpaint, upscale, clone and face-swap images and video with AI. Every tool spends coins
          from your balance, and your results land in folders on your profile.
        </PlainText>
      </div>
      <Space size="middle" className="welcome-banner-actions">
        <Link to={Paths.register}>
          <Button type="primary" size="large">
            Create an account
          </Button>
        </Link>
        <Link to={Paths.login}>
          <Button size="large" ghost>
            Log in
          </Button>
        </Link>
      </Space>
    </div>
  );
}
