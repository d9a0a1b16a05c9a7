/**
 * Renders `packages/laravel/src/Generated/Wire.php`: the protocol's wire constants, result literals,
 * secret rules and validator tables as PHP constants, from the same values `@toolmark/server` reads.
 * `generate-php.ts` writes the file; a protocol test renders it again in memory and fails when the
 * checked-in file differs.
 */
import { ERROR_MESSAGES, REFUSED_CODES, REFUSED_MESSAGES } from '../src/codes.ts'
import {
  CONTEXT_EXTENSION,
  CONTEXT_NAME_SOURCE,
  CONTEXT_NOTE,
  EXTENSION_NAME_SOURCE,
  MAX_CONTEXT_DESCRIPTION,
  MAX_CONTEXT_ENTRIES,
  MAX_CONTEXT_PER_SECOND,
  MAX_CONTEXT_TOTAL,
  MAX_EXTENSIONS,
  MAX_PROGRESS_MESSAGE,
  MAX_PROGRESS_PER_SECOND,
  PROGRESS_EXTENSION,
} from '../src/extensions.ts'
import {
  AGENT_SYSTEM_PROMPT,
  EMPTY_MANIFEST_TEXT,
  FOLLOW_UP_SYSTEM_PROMPT,
  PAGE_CALL_TOOL,
  PAGE_DESCRIBE_TOOL,
  STRUCTURED_NOTE,
  UNTRUSTED_NOTE,
} from '../src/llm.ts'
import { PROTOCOL_VERSION } from '../src/messages.ts'
import * as secrets from '../src/secrets.ts'
import {
  CONFIRM_TTL_MS,
  EXPIRED_RESULT,
  NO_PAGE_RESULT,
  PROVIDER_LIMITS,
  REJECT_REASONS,
  TIMEOUT_RESULT,
  VALIDATION,
  WIRE_HEADERS,
  WIRE_LIMITS,
  WIRE_NAMES,
} from '../src/wire.ts'

/** Where the generated file lives, relative to the repository root. */
export const WIRE_PHP_PATH = 'packages/laravel/src/Generated/Wire.php'

/** A PHP literal of a JSON-like value: short arrays, single-quoted strings. */
function php(value: unknown, indent = '    '): string {
  if (value === null) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer: ${value}`)
    return String(value)
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  const inner = `${indent}    `
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return `[\n${value.map((v) => `${inner}${php(v, inner)},\n`).join('')}${indent}]`
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
    if (entries.length === 0) return '[]'
    return `[\n${entries.map(([k, v]) => `${inner}${php(k)} => ${php(v, inner)},\n`).join('')}${indent}]`
  }
  throw new Error(`no PHP literal for ${typeof value}`)
}

/** A PCRE pattern (delimiters `~`) of a JavaScript regular expression source. */
function pcre(source: string, flags = ''): string {
  if (source.includes('~')) throw new Error(`pattern contains the delimiter: ${source}`)
  // JavaScript's \uXXXX is PCRE's \x{XXXX} (read as a code point in UTF-8 mode, flag u).
  const converted = source.replace(/\\u([0-9a-fA-F]{4})/g, '\\x{$1}')
  if (converted !== source && !flags.includes('u'))
    throw new Error(`a pattern with \\u escapes needs the u flag: ${source}`)
  return `~${converted}~${flags}`
}

/** One documented constant. */
function constant(doc: string, name: string, value: unknown): string {
  return `    /** ${doc} */\n    public const ${name} = ${php(value)};\n`
}

/** The full text of `Wire.php`. */
export function renderWirePhp(): string {
  const parts = [
    constant('The protocol version every message carries.', 'PROTOCOL', PROTOCOL_VERSION),
    constant(
      'Largest page message, in bytes of its JSON text; larger ones are rejected `invalid`.',
      'MAX_MESSAGE_BYTES',
      WIRE_LIMITS.maxMessageBytes,
    ),
    constant('Deepest nesting of a page message (the root is depth 1).', 'MAX_DEPTH', WIRE_LIMITS.maxDepth),
    constant('Longest clientId, id or confirmId, in code points.', 'MAX_ID_LENGTH', WIRE_LIMITS.maxIdLength),
    constant(
      "Longest text handed a model other than the user's, in UTF-16 code units: a longer tool result is replaced by an error, other texts are cut.",
      'MAX_PROVIDER_TEXT',
      PROVIDER_LIMITS.maxProviderText,
    ),
    constant(
      "Most characters of the page's manifest a turn offers (its tools that fit, in the page's order).",
      'MAX_MANIFEST_CHARS',
      PROVIDER_LIMITS.maxManifestChars,
    ),
    constant('Channel prefix and broadcast event names.', 'NAMES', WIRE_NAMES),
    constant('Headers the page sends with every POST.', 'HEADERS', WIRE_HEADERS),
    constant("The agent's outcome of a call whose deadline passed.", 'TIMEOUT_RESULT', TIMEOUT_RESULT),
    constant("The agent's outcome of a call when no page is connected.", 'NO_PAGE_RESULT', NO_PAGE_RESULT),
    constant("The agent's outcome of a confirmation that expired.", 'EXPIRED_RESULT', EXPIRED_RESULT),
    constant('How long the approval of a confirmation is accepted, in ms.', 'CONFIRM_TTL_MS', CONFIRM_TTL_MS),
    constant('Why a page message is rejected.', 'REJECT_REASONS', REJECT_REASONS),
    constant('The refused codes.', 'REFUSED_CODES', REFUSED_CODES),
    constant('The exact refused messages.', 'REFUSED_MESSAGES', REFUSED_MESSAGES),
    constant('The exact error messages.', 'ERROR_MESSAGES', ERROR_MESSAGES),
    constant("The fixed start of page_call's description.", 'PAGE_CALL_PREAMBLE', PAGE_CALL_TOOL.description),
    constant("page_describe's description.", 'PAGE_DESCRIBE_DESCRIPTION', PAGE_DESCRIBE_TOOL.description),
    constant('The rendered manifest of a page without tools.', 'EMPTY_MANIFEST', EMPTY_MANIFEST_TEXT),
    constant('The note of the untrusted envelope.', 'UNTRUSTED_NOTE', UNTRUSTED_NOTE),
    constant("The note beside a structured result's data.", 'STRUCTURED_NOTE', STRUCTURED_NOTE),
    constant("The system prompt's sentence about secrets.", 'SECRET_PROMPT_RULE', secrets.SECRET_PROMPT_RULE),
    constant('The system prompt of an ordinary agent turn.', 'AGENT_SYSTEM_PROMPT', AGENT_SYSTEM_PROMPT),
    constant(
      'The system prompt of the follow-up turn after a confirmed.',
      'FOLLOW_UP_SYSTEM_PROMPT',
      FOLLOW_UP_SYSTEM_PROMPT,
    ),
    constant("The validator's tables for page → agent messages.", 'VALIDATION', {
      ...VALIDATION,
      toolNamePattern: pcre(VALIDATION.toolNamePattern.replace(/\$$/, '\\z')),
      llmNamePattern: pcre(VALIDATION.llmNamePattern.replace(/\$$/, '\\z')),
    }),
    constant("The opt-in extensions' rules: the names a server takes, name pattern, limits.", 'EXTENSIONS', {
      accepted: [PROGRESS_EXTENSION, CONTEXT_EXTENSION],
      namePattern: pcre(EXTENSION_NAME_SOURCE.replace(/\$$/, '\\z')),
      maxExtensions: MAX_EXTENSIONS,
      maxProgressMessage: MAX_PROGRESS_MESSAGE,
      maxProgressPerSecond: MAX_PROGRESS_PER_SECOND,
      contextNamePattern: pcre(CONTEXT_NAME_SOURCE.replace(/\$$/, '\\z')),
      maxContextEntries: MAX_CONTEXT_ENTRIES,
      maxContextDescription: MAX_CONTEXT_DESCRIPTION,
      maxContextTotal: MAX_CONTEXT_TOTAL,
      maxContextPerSecond: MAX_CONTEXT_PER_SECOND,
      contextNote: CONTEXT_NOTE,
    }),
    constant('The secret rules (PCRE patterns, word lists, limits).', 'SECRETS', {
      masked: secrets.MASKED,
      maxDepth: secrets.MAX_MASK_DEPTH,
      cardMaskPrefix: secrets.CARD_MASK_PREFIX,
      codeMask: secrets.CODE_MASK,
      cardNumber: pcre(secrets.CARD_NUMBER_SOURCE),
      code: pcre(secrets.CODE_SOURCE, 'iu'),
      password: pcre(secrets.PASSWORD_SOURCE, 'iu'),
      keyWordSteps: secrets.KEY_WORD_STEPS.map(([pattern, replacement]) => [pcre(pattern), replacement]),
      keySplit: pcre(secrets.KEY_SPLIT_SOURCE),
      secretKeyWords: secrets.SECRET_KEY_WORDS,
      secretKeyJoined: pcre(secrets.SECRET_KEY_JOINED_SOURCE),
      cardKeyJoined: pcre(secrets.CARD_KEY_JOINED_SOURCE),
      cardKeyMinDigits: secrets.CARD_KEY_MIN_DIGITS,
      cardNumberDigits: secrets.CARD_NUMBER_DIGITS,
      minSecretLength: secrets.MIN_SECRET_LENGTH,
      maxSensitivePaths: secrets.MAX_SENSITIVE_PATHS,
      maxSensitivePathChars: secrets.MAX_SENSITIVE_PATH_CHARS,
      maxSplitKeyLength: secrets.MAX_SPLIT_KEY_LENGTH,
    }),
  ]
  return `<?php

// Generated from @toolmark/protocol by packages/protocol/scripts/generate-php.ts. Do not edit:
// change the protocol package and run \`pnpm --filter @toolmark/protocol generate:php\`.

namespace Toolmark\\Laravel\\Generated;

/**
 * The wire constants the PHP server shares with @toolmark/server: limits, names, the results a
 * server makes up itself, rejection reasons, codes, the secret rules and the validator's tables.
 */
final class Wire
{
${parts.join('\n')}}
`
}
