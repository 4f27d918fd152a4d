import { theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/**
 * antd Typography's Title and secondary Text as plain elements, drawn from the same theme tokens
 * (light and dark). The home page's first load uses these: Typography brings its ellipsis, copy and
 * edit features with it (Tooltip, TextArea and, through Input, antd's Form), none of them used there.
 */
export function PlainTitle({
  level,
  style,
  children,
}: {
  level: 2 | 3;
  style?: CSSProperties;
  children: ReactNode;
}) {
  const { token } = theme.useToken();
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <Heading
      style={{
        margin: 0,
        color: token.colorTextHeading,
        fontWeight: token.fontWeightStrong,
        fontSize: level === 2 ? token.fontSizeHeading2 : token.fontSizeHeading3,
        lineHeight: level === 2 ? token.lineHeightHeading2 : token.lineHeightHeading3,
        overflowWrap: 'break-word',
        ...style,
      }}
    >
      {children}
    </Heading>
  );
}

/** A paragraph of secondary text (antd's colorTextDescription), like `<Typography.Text type="secondary">`. */
export function PlainText({
  secondary = false,
  style,
  children,
}: {
  secondary?: boolean;
  style?: CSSProperties;
  children: ReactNode;
}) {
  const { token } = theme.useToken();
  return (
    <p
      style={{
        margin: 0,
        color: secondary ? token.colorTextDescription : undefined,
        overflowWrap: 'break-word',
        ...style,
      }}
    >
      {children}
    </p>
  );
}
