/**
 * Every client path in one place, so menus and pages never spell a route by hand.
 * Kept apart from routes.tsx so pages can import it without a cycle.
 */
export const Paths = {
  home: '/',
  login: '/login',
  register: '/register',
  profile: '/profile',
  refill: '/profile/refill',
  account: '/account',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  verifyEmail: '/verify-email',
  credits: '/credits',
  jobs: '/jobs',
  verify: '/verify',
  report: '/report',
  appeal: '/appeal',
  ageCheck: '/age-check',
  magic: '/magic',
  generate: '/generate',
  swap: '/swap',
  superResolution: '/superresolution',
  swapVideo: '/swapvideo',
  adminLogs: '/admin/logs',
  adminSupport: '/admin/support',
  adminOperations: '/admin/operations',
  adminModeration: '/admin/moderation',
  adminReports: '/admin/reports',
  adminTransparency: '/admin/transparency',
  userProfile: (username: string) => `/profile/${encodeURIComponent(username)}`,
  inpaints: (username: string) => `/profile/inpaints/${encodeURIComponent(username)}`,
  // The spec navigates with this spelling; route matching is case-insensitive.
  bulkInpaints: (folderId: string) => `/profile/bulkInpaints/${encodeURIComponent(folderId)}`,
} as const;
