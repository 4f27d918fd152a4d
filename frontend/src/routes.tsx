import type { RouteObject } from 'react-router-dom';
import { AppLayout } from './layout/AppLayout';
import { AdminLogsPage } from './pages/AdminLogs/AdminLogsPage';
import { AdminOperationsPage } from './pages/AdminOperations/AdminOperationsPage';
import { SupportPage } from './pages/AdminSupport/SupportPage';
import { FaceSwapPage } from './pages/FaceSwap/FaceSwapPage';
import { GeneratePage } from './pages/Generate/GeneratePage';
import { MagicBrushPage } from './pages/MagicBrush/MagicBrushPage';
import { FolderContentsPage } from './pages/FolderContents/FolderContentsPage';
import { HomePage } from './pages/Home/HomePage';
import { LoginPage } from './pages/Login/LoginPage';
import { NotFoundPage } from './pages/NotFound/NotFoundPage';
import { PatreonPage } from './pages/Patreon/PatreonPage';
import { ProfilePage } from './pages/Profile/ProfilePage';
import { RefillPage } from './pages/Refill/RefillPage';
import { RegisterPage } from './pages/Register/RegisterPage';
import { StripeResultPage } from './pages/StripeResult/StripeResultPage';
import { SuperResolutionPage } from './pages/SuperResolution/SuperResolutionPage';
import { VideoSwapPage } from './pages/VideoSwap/VideoSwapPage';

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
      { path: 'profile/:username', element: <ProfilePage /> },
      { path: 'profile/inpaints/:username', element: <ProfilePage /> },
      { path: 'profile/bulkinpaints/:id', element: <FolderContentsPage /> },
      { path: 'stripe/:status', element: <StripeResultPage /> },
      { path: 'stripe/:status/:session', element: <StripeResultPage /> },
      { path: 'patreon', element: <PatreonPage /> },
      { path: 'patreon/:secret', element: <PatreonPage /> },
      { path: 'admin/logs', element: <AdminLogsPage /> },
      { path: 'admin/support', element: <SupportPage /> },
      { path: 'admin/operations', element: <AdminOperationsPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
