/**
 * Architecture rules, checked by `pnpm lint` (dependency-cruiser over packages/*\/src and the agent server).
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
        '@toolmark/protocol is what servers import: it depends on nothing, not even another Toolmark package.',
      severity: 'error',
      from: { path: '^packages/protocol/src/', pathNot: '__tests__' },
      to: { pathNot: '^packages/protocol/src/' },
    },
    {
      name: 'core-is-framework-free',
      comment:
        'The core never imports a UI framework, a meta-framework or another Toolmark package but the protocol (not even in tests: the add-ons depend on it).',
      severity: 'error',
      from: { path: '^packages/core/src' },
      to: {
        path: '(^|node_modules/)(react|react-dom|vue|svelte|next|@inertiajs|@toolmark/(?!protocol(/|$))[^/]+)(/|$)|^packages/(?!core/|protocol/)',
      },
    },
    {
      name: 'add-ons-use-core-entries',
      comment:
        'The add-on packages stand on the core through its published entries only (the app API, /adapter, /testing), never a file inside it.',
      severity: 'error',
      from: { path: '^packages/(bridge|forms|tour|otel)/src' },
      to: {
        path: '^packages/core/src/',
        pathNot: '^packages/core/src/(index|types|adapter/index|testing/index)\\.ts$',
      },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment: 'Each framework adapter stands on the core alone.',
      severity: 'error',
      from: { path: '^packages/(react|vue|svelte)/src' },
      to: { path: '^packages/(react|vue|svelte)/src', pathNot: '^packages/$1/src' },
    },
    {
      name: 'offline-agent-stands-alone',
      comment:
        'The offline demo agent stands on the core and the protocol alone: it never imports a server, an app or another package.',
      severity: 'error',
      from: { path: '^packages/offline-agent/src', pathNot: '__tests__' },
      to: {
        path: '(^apps/|^packages/(?!core/|protocol/|offline-agent/)|node_modules/@toolmark/(?!core/|protocol/))',
      },
    },
    {
      name: 'server-no-cycles',
      comment: 'The demo agent server app has no import cycle either.',
      severity: 'error',
      from: { path: '^apps/agent-server/src' },
      to: { circular: true },
    },
    // The core's feature folders form a stack: the registry composes the call pipeline, the pipeline
    // asks for confirmations, and what several of them share (the entry, results, serialization,
    // redaction) lives in tool/ below them all. A folder never imports one above it, not even a
    // type, nor the facade (toolmark.ts) or the entry (index.ts).
    ...[
      ['tool', 'call|confirm|registry|adapter|testing|webmcp'],
      ['confirm', 'call|registry|adapter|testing|webmcp'],
      ['call', 'registry|adapter|testing|webmcp'],
      ['registry', 'adapter|testing|webmcp'],
    ].map(([layer, above]) => ({
      name: `core-${layer}-depends-down`,
      severity: 'error',
      from: { path: `^packages/core/src/${layer}/`, pathNot: '__tests__' },
      to: { path: `^packages/core/src/((${above})/|(toolmark|index)\\.ts$)` },
    })),
    {
      name: 'server-main-entry-is-web-standard',
      comment:
        "@toolmark/server's main entry runs wherever a Request arrives: no Node built-in, no Node-only package. " +
        'Sockets, SQLite, PostgreSQL, Redis and the model SDKs sit behind their own subpaths (node, sqlite, postgres, redis, anthropic, openai).',
      severity: 'error',
      from: {
        path: '^packages/server/src/((index|server)\\.ts$|(agent|coordinate|http|relay|shared|store)/)',
        pathNot:
          '(^packages/server/src/(http/ws|store/(sqlite|statements|migrations|postgres|pg-migrations))\\.ts$|__tests__)',
      },
      to: {
        path: '(^node:|^(fs|path|os|http|net|crypto|stream|url)$|node_modules/(ws|better-sqlite3|pg|ioredis|@hono/node-server)/)',
        dependencyTypesNot: ['type-only'],
      },
    },
    // @toolmark/server depends one way: http/ on agent/, agent/ on relay/, relay/ on store/, all on shared/
    // (type-only imports aside); nothing under a folder imports the composing files at the top. coordinate/ (the
    // Coordinator port of shared mode, used by relay/, agent/ and http/) stands on shared/ alone.
    ...[
      ['shared', 'http|agent|relay|store|coordinate'],
      ['coordinate', 'http|agent|relay|store'],
      ['store', 'http|agent|relay'],
      ['relay', 'http|agent'],
      ['agent', 'http'],
    ].map(([layer, above]) => ({
      name: `server-${layer}-depends-down`,
      severity: 'error',
      from: { path: `^packages/server/src/${layer}/`, pathNot: '__tests__' },
      to: {
        path: `^packages/server/src/((${above})/|[^/]+\\.ts$)`,
        dependencyTypesNot: ['type-only'],
      },
    })),
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
