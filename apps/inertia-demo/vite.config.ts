import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

export default defineConfig({
  plugins: [react()],
  // Workspace packages resolve to their TypeScript sources: no package build needed.
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  // Built into Laravel's public/build with a manifest: the Inertia stand-in reads it for the asset tags and version.
  build: {
    outDir: 'laravel/public/build',
    emptyOutDir: true,
    manifest: true,
    rollupOptions: { input: 'src/app.tsx' },
    chunkSizeWarningLimit: 2000,
  },
})
