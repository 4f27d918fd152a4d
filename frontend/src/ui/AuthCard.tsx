import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';

interface AuthCardProps {
  title: string;
  children: ReactNode;
  footer: ReactNode;
}

/** The narrow centred card that holds the login and register forms. */
export function AuthCard({ title, children, footer }: AuthCardProps) {
  return (
    <Card className="auth-card" style={{ maxWidth: 420, margin: '48px auto' }}>
      <Typography.Title level={2} style={{ textAlign: 'center', marginTop: 0 }}>
        {title}
      </Typography.Title>
      {children}
      <div className="auth-card-footer" style={{ textAlign: 'center' }}>
        {footer}
      </div>
    </Card>
  );
}
