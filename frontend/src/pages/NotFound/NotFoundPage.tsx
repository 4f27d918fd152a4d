import { Button, Result } from 'antd';
import { useNavigate } from 'react-router-dom';
import { Paths } from '../../paths';

/** Any unmatched route. */
export function NotFoundPage() {
  const navigate = useNavigate();
  return (
    <Result
      status="404"
      title="Page not found"
      subTitle="The page you are looking for does not exist."
      extra={
        <Button type="primary" onClick={() => navigate(Paths.home)}>
          Homepage
        </Button>
      }
    />
  );
}
