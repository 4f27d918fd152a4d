import { CheckCircleFilled, StarFilled } from '@ant-design/icons';
import { Tag } from 'antd';

interface ProfileBadgeProps {
  verified: boolean;
  early: boolean;
}

/** One badge: early supporter wins over verified (spec section 2). */
export function ProfileBadge({ verified, early }: ProfileBadgeProps) {
  if (early) {
    return (
      <Tag color="gold" icon={<StarFilled />}>
        Early supporter
      </Tag>
    );
  }
  if (verified) {
    return (
      <Tag color="blue" icon={<CheckCircleFilled />}>
        Verified
      </Tag>
    );
  }
  return null;
}
