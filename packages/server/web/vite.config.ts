/**
 * Builds the web UI (web/) into dist/ui/ at package build time: the server serves index.html for its page routes
 * and the hashed bundles under /ui/assets/. Preact's automatic JSX runtime; no inline scripts (the server's
 * Content-Security-Policy allows only same-origin scripts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
});
