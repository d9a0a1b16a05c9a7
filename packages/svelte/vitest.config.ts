import { svelte } from '@sveltejs/vite-plugin-svelte'
import { svelteTesting } from '@testing-library/svelte/vite'
import { defineProject } from 'vitest/config'

export default defineProject({
  plugins: [svelte({ configFile: false }), svelteTesting({ resolveBrowser: false })],
  // Browser builds of Svelte for component tests; server builds for `@vitest-environment node` files (SSR).
  resolve: { conditions: ['@toolmark/source', 'browser', 'module', 'development|production'] },
  ssr: { resolve: { conditions: ['@toolmark/source', 'node', 'module', 'development|production'] } },
  test: {
    name: 'svelte',
    environment: 'happy-dom',
    include: ['src/**/__tests__/**/*.test.ts'],
    typecheck: {
      enabled: process.env.TOOLMARK_TYPES_CHECKED !== '1',
      include: ['src/**/__tests__/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
})
