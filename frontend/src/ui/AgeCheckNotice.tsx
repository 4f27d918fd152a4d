import { AGE_CHECK_PATH, SAFETY_REASONS, type AgeAssuranceStatus } from '@studio/contracts';
import { Alert } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { apiGet } from '../api/client';

/** The account's age assurance, read once per screen (null until known). */
export function useAgeAssurance(): AgeAssuranceStatus | null {
  const [status, setStatus] = useState<AgeAssuranceStatus | null>(null);
  useEffect(() => {
    let live = true;
    void apiGet<AgeAssuranceStatus>('/age-assurance').then((result) => {
      if (live && result.ok && result.body) setStatus(result.body.content);
    });
    return () => {
      live = false;
    };
  }, []);
  return status;
}

/** On the photo tools: says, before anything is tried, that the age check comes first, with its link. */
export function AgeCheckNotice() {
  const status = useAgeAssurance();
  if (!status || !status.required || status.assured) return null;
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="age-check-notice"
      message={SAFETY_REASONS.age_not_assured}
      action={<Link to={AGE_CHECK_PATH}>Check my age</Link>}
    />
  );
}
