import { lazy, Suspense, useState, type ComponentType } from 'react';
import { Spin } from 'antd';
import type { RouteObject } from 'react-router-dom';
import { AppLayout } from './layout/AppLayout';
import { HomePage } from './pages/Home/HomePage';

const pageLoaders: (() => Promise<unknown>)[] = [];

/**
 * A page loaded on first visit: each route downloads only its own code (and the antd parts it
 * uses), so the home page's first load stays small. Only Home is in the first chunk. Once loaded,
 * a page renders at once (no fallback) wherever it is mounted next.
 */
function page(load: () => Promise<ComponentType>): ComponentType {
  let loaded: ComponentType | undefined;
  const fetchPage = async () => (loaded ??= await load());
  pageLoaders.push(fetchPage);
  const Lazy = lazy(async () => ({ default: await fetchPage() }));
  return function LazyPage() {
    // Decided once per mount, so a later re-render never swaps the element type (and its state).
    const [Loaded] = useState(() => loaded);
    if (Loaded) return <Loaded />;
    return (
      <Suspense fallback={<Spin style={{ display: 'block', margin: '120px auto' }} />}>
        <Lazy />
      </Suspense>
    );
  };
}

/** Loads every lazy page (unit tests render routes synchronously after this). */
export async function preloadPages(): Promise<void> {
  await Promise.all(pageLoaders.map((loadPage) => loadPage()));
}

const AccountPage = page(() => import('./pages/Account/AccountPage').then((m) => m.AccountPage));
const ForgotPasswordPage = page(() =>
  import('./pages/Account/ForgotPasswordPage').then((m) => m.ForgotPasswordPage),
);
const ResetPasswordPage = page(() =>
  import('./pages/Account/ResetPasswordPage').then((m) => m.ResetPasswordPage),
);
const VerifyEmailPage = page(() => import('./pages/Account/VerifyEmailPage').then((m) => m.VerifyEmailPage));
const AdminLogsPage = page(() => import('./pages/AdminLogs/AdminLogsPage').then((m) => m.AdminLogsPage));
const AdminOperationsPage = page(() =>
  import('./pages/AdminOperations/AdminOperationsPage').then((m) => m.AdminOperationsPage),
);
const SupportPage = page(() => import('./pages/AdminSupport/SupportPage').then((m) => m.SupportPage));
const ModerationPage = page(() => import('./pages/Moderation/ModerationPage').then((m) => m.ModerationPage));
const FaceSwapPage = page(() => import('./pages/FaceSwap/FaceSwapPage').then((m) => m.FaceSwapPage));
const GeneratePage = page(() => import('./pages/Generate/GeneratePage').then((m) => m.GeneratePage));
const MagicBrushPage = page(() => import('./pages/MagicBrush/MagicBrushPage').then((m) => m.MagicBrushPage));
const FolderContentsPage = page(() =>
  import('./pages/FolderContents/FolderContentsPage').then((m) => m.FolderContentsPage),
);
const CreditsPage = page(() => import('./pages/Credits/CreditsPage').then((m) => m.CreditsPage));
const JobsPage = page(() => import('./pages/Jobs/JobsPage').then((m) => m.JobsPage));
const LoginPage = page(() => import('./pages/Login/LoginPage').then((m) => m.LoginPage));
const PatreonPage = page(() => import('./pages/Patreon/PatreonPage').then((m) => m.PatreonPage));
const ProfilePage = page(() => import('./pages/Profile/ProfilePage').then((m) => m.ProfilePage));
const RefillPage = page(() => import('./pages/Refill/RefillPage').then((m) => m.RefillPage));
const RegisterPage = page(() => import('./pages/Register/RegisterPage').then((m) => m.RegisterPage));
const StripeResultPage = page(() =>
  import('./pages/StripeResult/StripeResultPage').then((m) => m.StripeResultPage),
);
const TestCheckoutPage = page(() =>
  import('./pages/StripeResult/TestCheckoutPage').then((m) => m.TestCheckoutPage),
);
const AgeCheckPage = page(() => import('./pages/AgeCheck/AgeCheckPage').then((m) => m.AgeCheckPage));
const TestAgeCheckPage = page(() =>
  import('./pages/AgeCheck/TestAgeCheckPage').then((m) => m.TestAgeCheckPage),
);
const SuperResolutionPage = page(() =>
  import('./pages/SuperResolution/SuperResolutionPage').then((m) => m.SuperResolutionPage),
);
const NotFoundPage = page(() => import('./pages/NotFound/NotFoundPage').then((m) => m.NotFoundPage));
const VerifyPage = page(() => import('./pages/Verify/VerifyPage').then((m) => m.VerifyPage));
const ReportPage = page(() => import('./pages/Report/ReportPage').then((m) => m.ReportPage));
const AppealPage = page(() => import('./pages/Report/AppealPage').then((m) => m.AppealPage));
const AdminReportsPage = page(() =>
  import('./pages/AdminReports/AdminReportsPage').then((m) => m.AdminReportsPage),
);
const TransparencyPage = page(() =>
  import('./pages/AdminReports/TransparencyPage').then((m) => m.TransparencyPage),
);
const VideoSwapPage = page(() => import('./pages/VideoSwap/VideoSwapPage').then((m) => m.VideoSwapPage));

/**
 * The one route table (spec section 2). The admin and support console's screens check the role
 * themselves (RequireRole) and show Not Found to everyone else.
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <AppLayout />,
    children: [
      { index: true, element: <HomePage /> },
      { path: 'superresolution', element: <SuperResolutionPage /> },
      { path: 'swap', element: <FaceSwapPage /> },
      { path: 'swapvideo', element: <VideoSwapPage /> },
      { path: 'magic', element: <MagicBrushPage /> },
      { path: 'generate', element: <GeneratePage /> },
      { path: 'login', element: <LoginPage /> },
      { path: 'register', element: <RegisterPage /> },
      { path: 'profile', element: <ProfilePage /> },
      { path: 'profile/refill', element: <RefillPage /> },
      { path: 'account', element: <AccountPage /> },
      { path: 'forgot-password', element: <ForgotPasswordPage /> },
      { path: 'reset-password', element: <ResetPasswordPage /> },
      { path: 'verify-email', element: <VerifyEmailPage /> },
      { path: 'credits', element: <CreditsPage /> },
      { path: 'jobs', element: <JobsPage /> },
      { path: 'verify', element: <VerifyPage /> },
      { path: 'report', element: <ReportPage /> },
      { path: 'appeal', element: <AppealPage /> },
      { path: 'profile/:username', element: <ProfilePage /> },
      { path: 'profile/inpaints/:username', element: <ProfilePage /> },
      { path: 'profile/bulkinpaints/:id', element: <FolderContentsPage /> },
      { path: 'stripe/test-checkout/:session', element: <TestCheckoutPage /> },
      { path: 'stripe/test-age-check/:session', element: <TestAgeCheckPage /> },
      { path: 'age-check', element: <AgeCheckPage /> },
      { path: 'stripe/:status', element: <StripeResultPage /> },
      { path: 'stripe/:status/:session', element: <StripeResultPage /> },
      { path: 'patreon', element: <PatreonPage /> },
      { path: 'patreon/:secret', element: <PatreonPage /> },
      { path: 'admin/logs', element: <AdminLogsPage /> },
      { path: 'admin/support', element: <SupportPage /> },
      { path: 'admin/operations', element: <AdminOperationsPage /> },
      { path: 'admin/moderation', element: <ModerationPage /> },
      { path: 'admin/reports', element: <AdminReportsPage /> },
      { path: 'admin/transparency', element: <TransparencyPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
