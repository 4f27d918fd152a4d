import { Layout } from 'antd';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../config';
import { Paths } from '../paths';

export function AppFooter() {
  return (
    <Layout.Footer className="app-footer">
      © {new Date().getFullYear()} {PRODUCT_NAME} · <Link to={Paths.verify}>Verify a file</Link> ·{' '}
      <Link to={Paths.report}>Report content</Link>
    </Layout.Footer>
  );
}
