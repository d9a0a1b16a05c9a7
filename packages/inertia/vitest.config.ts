import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { svelteTesting } from '@testing-library/svelte/vite'
import { defineProject } from 'vitest/config'

// The 'browser' condition below (Svelte's client build) would also pick ws's browser stub, which has no
// server: the Pusher test server gets ws's Node entry.
const wsEntry = join(
  dirname(
    createRequire(new URL('../pusher-server/package.json', import.meta.url)).resolve('ws/package.json'),
  ),
  'wrapper.mjs',
)

export default defineProject({
  // Svelte components (the /svelte fixtures) compile for the browser in happy-dom.
  plugins: [svelte({ configFile: false }), svelteTesting({ resolveBrowser: false })],
  resolve: {
    conditions: ['@toolmark/source', 'browser', 'module', 'development|production'],
    alias: [{ find: /^ws$/, replacement: wsEntry }],
  },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'inertia',
    environment: 'happy-dom',
    include: ['src/**/__tests__/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/__tests__/setup.ts'],
    typecheck: {
      enabled: process.env.TOOLMARK_TYPES_CHECKED !== '1',
      include: ['src/**/__tests__/**/*.test-d.{ts,tsx}'],
      tsconfig: './tsconfig.json',
    },
  },
})
