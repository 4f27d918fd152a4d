import { Button, Result, Space, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { AllowanceNotice } from '../../allowance/AllowanceNotice';
import { useAllowance } from '../../allowance/useAllowance';
import { useSession } from '../../session/useSession';
import { useBillingStatus } from '../Refill/usePaymentsStatus';

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
  const { account } = useSession();
  const billing = useBillingStatus();
  const allowance = billing?.welcomeAllowance ?? 0;
  // Asked once the address is verified: before, the server would still answer "unverified".
  const status = useAllowance(state.status === 'done');
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
      subTitle={
        state.status === 'done' && allowance > 0 ? (
          <div className="allowance-result">
            {account ? (
              <AllowanceNotice status={status} showGranted />
            ) : (
              `New accounts get ${allowance} free coins to try the tools, once per person: log in to see them in your balance.`
            )}
          </div>
        ) : undefined
      }
      extra={
        state.status === 'done' && allowance > 0 ? (
          <Space wrap>
            <Button type="primary" onClick={() => navigate(Paths.home)}>
              Try a tool
            </Button>
            <Button onClick={() => navigate(Paths.refill)}>Buy coins</Button>
          </Space>
        ) : (
          <Button
            type="primary"
            onClick={() => navigate(state.status === 'done' ? Paths.refill : Paths.account)}
          >
            {state.status === 'done' ? 'Buy coins' : 'Go to your account'}
          </Button>
        )
      }
    />
  );
}
