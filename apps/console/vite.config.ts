import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Relative asset URLs: the gateway serves the build under /console/.
export default defineConfig({
  base: './',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } } },
});
