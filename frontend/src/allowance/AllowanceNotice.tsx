import {
  ALLOWANCE_NOT_EXPECTED,
  ALLOWANCE_REFUSAL_TEXTS,
  allowanceOffer,
  formatCount,
  type AllowanceStatus,
} from '@studio/contracts';
import { Alert, Button, type AlertProps } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiPost, errorText } from '../api/client';
import { Paths } from '../paths';
import { useToast } from '../ui/toast';

/**
 * What a newcomer needs to know about the free coins, from the server's decision: how to get them
 * (verify the address), that they are on their way, or why none came and what to do instead.
 * Nothing once they are in the balance, unless `showGranted` (the verification page says so).
 */
export function AllowanceNotice({
  status,
  showGranted = false,
}: {
  status: AllowanceStatus | null;
  showGranted?: boolean;
}) {
  const navigate = useNavigate();
  const notice = status && noticeFor(status, showGranted, () => navigate(Paths.refill));
  if (!status || !notice) return null;
  return (
    <Alert
      showIcon
      className="allowance-notice"
      data-testid="allowance-notice"
      data-state={status.state}
      data-reason={
        status.state === 'refused'
          ? status.reason
          : status.state === 'unverified'
            ? status.expected
            : undefined
      }
      {...notice}
    />
  );
}

type Notice = Pick<AlertProps, 'type' | 'message' | 'description' | 'action'>;

function noticeFor(status: AllowanceStatus, showGranted: boolean, buyCoins: () => void): Notice | null {
  if (status.state === 'off') return null;
  const welcome = `New accounts get ${formatCount(status.coins)} free coins to try the tools, once per person`;
  switch (status.state) {
    case 'unverified': {
      if (status.expected) {
        // The server already knows the coins will not come (this network, this address): say so
        // now rather than promise them and take the promise back after the verification.
        const { why, next } = ALLOWANCE_REFUSAL_TEXTS[status.expected];
        return {
          type: 'info',
          message: ALLOWANCE_NOT_EXPECTED,
          description: `${why} ${next}`,
          action: <ResendLink />,
        };
      }
      return {
        type: 'info',
        message: `${allowanceOffer(status.coins)}.`,
        description:
          'We sent you a link when you registered: open it and the coins reach your balance a moment later.',
        action: <ResendLink />,
      };
    }
    case 'pending':
      return { type: 'info', message: `${welcome}: they reach your balance in a moment.` };
    case 'granted':
      return showGranted ? { type: 'success', message: `${welcome}: they are in your balance.` } : null;
    case 'refused': {
      const { why, next } = ALLOWANCE_REFUSAL_TEXTS[status.reason];
      return {
        type: 'warning',
        message: why,
        description: next,
        action: (
          <Button type="primary" size="small" onClick={buyCoins}>
            Buy coins
          </Button>
        ),
      };
    }
  }
}

/** Sends the verification link again (POST /api/account/verification), and says how that went. */
function ResendLink() {
  const toast = useToast();
  const [sending, setSending] = useState(false);
  const resend = async () => {
    setSending(true);
    const result = await apiPost<string>('/account/verification');
    setSending(false);
    if (result.ok && result.body) toast.success(result.body.content);
    else toast.error(errorText(result));
  };
  return (
    <Button size="small" onClick={resend} loading={sending}>
      Send the link again
    </Button>
  );
}
