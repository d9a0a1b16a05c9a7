/**
 * Architecture rules, checked by `pnpm lint` (dependency-cruiser over packages/*\/src).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycle inside a package: layers depend one way.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src' },
      to: { circular: true },
    },
    {
      name: 'protocol-is-standalone',
      comment:
        'The protocol module is what servers import: it may depend only on itself, on types and on the code tables.',
      severity: 'error',
      from: { path: '^packages/core/src/protocol/', pathNot: '__tests__' },
      to: {
        path: '^packages/core/src/',
        pathNot: [
          '^packages/core/src/protocol/',
          '^packages/core/src/codes\\.ts$',
          '^packages/core/src/types\\.ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'core-is-framework-free',
      comment: 'The core never imports a UI framework, a meta-framework or another Toolmark package.',
      severity: 'error',
      from: { path: '^packages/core/src', pathNot: '__tests__' },
      to: {
        path: '(^|node_modules/)(react|react-dom|vue|svelte|next|@inertiajs|@toolmark/(react|vue|svelte|next|inertia|mcp))(/|$)',
      },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment: 'Each framework adapter stands on the core alone.',
      severity: 'error',
      from: { path: '^packages/(react|vue|svelte)/src' },
      to: { path: '^packages/(react|vue|svelte)/src', pathNot: '^packages/$1/src' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      conditionNames: ['@toolmark/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.d.ts'],
    },
    moduleSystems: ['es6'],
  },
}
