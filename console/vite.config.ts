import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console and account page: one SPA, built to dist/console and served by the
 * service at /console and /account (src/console). Assets live under /console/assets
 * with hashed names. No inline scripts (the CSP allows scripts from 'self' only).
 * `npm run dev:console` serves it with the API proxied to a locally running service.
 */
export default defineConfig({
  root,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    proxy: { '/api': process.env.VITE_PROXY_TARGET ?? 'http://localhost:3000' },
  },
});
