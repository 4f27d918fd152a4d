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
    // antd alone is about 820 kB minified (with Upload, Select, Progress for the tools); it sits in
    // its own long-cached chunk.
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      output: {
        // Vendor code changes rarely; separate chunks keep it cached across releases.
        manualChunks: {
          react: ['react', 'react-dom', 'react-router-dom'],
          antd: ['antd', '@ant-design/icons'],
        },
      },
    },
  },
  server: { proxy },
  preview: { proxy },
});
