import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The NestJS API in development; override when it listens elsewhere.
const apiOrigin = process.env.STUDIO_API_ORIGIN ?? 'http://localhost:3000';

// Same-origin in the browser: the session cookie is httpOnly, so the API and the socket are proxied.
const proxy = {
  '/api': { target: apiOrigin },
  '/socket.io': { target: apiOrigin, ws: true },
};

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      // Use the contracts' TypeScript sources directly: one definition of every message and limit.
      '@studio/contracts': fileURLToPath(new URL('../libs/contracts/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: which chunks each entry and lazy page loads (npm run bundle-report).
    manifest: true,
    // The admin statistics chart (@ant-design/charts, about 1.5 MB minified) is one lazy chunk that
    // only /admin/logs loads.
    chunkSizeWarningLimit: 1600,
    rollupOptions: {
      // obscenity (the age gate's prompt matcher in @studio/contracts, used by the server only)
      // builds its word list when its module loads: pure data, no side effect, so the screens,
      // which never call the matcher, do not ship it (about 17 kB gzip in the entry chunk).
      treeshake: { moduleSideEffects: (id) => !/[\\/]node_modules[\\/]obscenity[\\/]/.test(id) },
      output: {
        // React changes rarely; its own chunk stays cached across releases. antd is not forced into
        // one chunk: each lazy route takes only the components it imports.
        manualChunks: { react: ['react', 'react-dom', 'react-router-dom'] },
      },
    },
  },
  server: { proxy },
  preview: { proxy },
});
