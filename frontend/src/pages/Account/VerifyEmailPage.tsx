import { Button, Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';

type State = { status: 'working' } | { status: 'done' | 'failed'; text: string };

/**
 * Where the verification mail links to. The token is sent by a POST from here, not by opening the
 * link itself, so mail scanners that fetch links do not use it up.
 */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<State>({ status: 'working' });
  const navigate = useNavigate();
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void apiPost<string>('/email/verify', { token }).then((result) =>
      setState(
        result.ok && result.body
          ? { status: 'done', text: result.body.content }
          : { status: 'failed', text: errorText(result) },
      ),
    );
  }, [token]);
  if (state.status === 'working')
    return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  return (
    <Result
      status={state.status === 'done' ? 'success' : 'warning'}
      title={state.text}
      extra={
        <Button
          type="primary"
          onClick={() => navigate(state.status === 'done' ? Paths.refill : Paths.account)}
        >
          {state.status === 'done' ? 'Buy coins' : 'Go to your account'}
        </Button>
      }
    />
  );
}
