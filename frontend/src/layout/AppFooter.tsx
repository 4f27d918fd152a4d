import { Layout } from 'antd';
import { PRODUCT_NAME } from '../config';

export function AppFooter() {
  return (
    <Layout.Footer className="app-footer">
      © {new Date().getFullYear()} {PRODUCT_NAME}
    </Layout.Footer>
  );
}
