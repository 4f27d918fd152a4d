import { CLONE_AMOUNT, formatCount, plural, quoteTool } from '@studio/contracts';
import { Button, InputNumber, Modal, Typography } from 'antd';
import { CoinIcon } from '../../ui/CoinIcon';

interface CloneAmountModalProps {
  open: boolean;
  amount: number | null;
  balance: number | null;
  onAmount(amount: number | null): void;
  onCancel(): void;
  onGenerate(): void;
}

/** 'Create new clones': how many copies, what they cost, Cancel / 'Generate Clones'. */
export function CloneAmountModal({
  open,
  amount,
  balance,
  onAmount,
  onCancel,
  onGenerate,
}: CloneAmountModalProps) {
  const cost = quoteTool('clone', amount ?? 0);
  return (
    <Modal
      title="Create new clones"
      open={open}
      onCancel={onCancel}
      centered
      width={420}
      footer={[
        <Button key="cancel" onClick={onCancel}>
          Cancel
        </Button>,
        <Button
          key="generate"
          type="primary"
          disabled={!amount || amount < CLONE_AMOUNT.min}
          onClick={onGenerate}
        >
          Generate Clones
        </Button>,
      ]}
    >
      <div className="clone-amount">
        <label htmlFor="clone-amount">Amount</label>
        <InputNumber
          id="clone-amount"
          min={CLONE_AMOUNT.min}
          max={CLONE_AMOUNT.max}
          precision={0}
          value={amount}
          onChange={onAmount}
          onPressEnter={onGenerate}
          size="large"
          style={{ width: '100%' }}
          autoFocus
        />
        <Typography.Text type="secondary" data-testid="clone-cost">
          Costs <CoinIcon /> {plural(cost, 'credit')} · your balance is {formatCount(balance ?? 0)}
        </Typography.Text>
      </div>
    </Modal>
  );
}
