/**
 * The secret rules every Toolmark server applies before it stores, queues, broadcasts, logs or
 * sends anything to a model, as data: regular expression sources (valid in JavaScript and in
 * PCRE), word lists and limits. `@toolmark/server` builds its masking from them, and the PHP
 * package reads the same values from its generated `Wire.php`. The corpus in
 * `src/__fixtures__/secrets/` says what each server must mask and what must stay.
 */

/** The placeholder for a masked value (the page's own placeholder, `REDACTED` in core). */
export const MASKED = '[redacted]'

/** Values nested deeper than this are replaced by {@link MASKED} as a whole (fail closed). */
export const MAX_MASK_DEPTH = 64

/** What a masked card number keeps: this prefix, then its last 4 digits. */
export const CARD_MASK_PREFIX = '**** '

/** What replaces a code after its keyword in text (`cvc ***`). */
export const CODE_MASK = '***'

/**
 * A card number in text: 13–19 digits, optionally grouped by spaces or dashes, not glued to other
 * word characters. Flags `g`.
 */
export const CARD_NUMBER_SOURCE = '(?<![\\w-])\\d(?:[ -]?\\d){12,18}(?![\\w-])'

/**
 * White space as JavaScript's `\s` reads it (a no-break space, the em space, the ideographic space…), spelled out
 * so that PCRE (which reads `\s` as ASCII white space) matches the same characters: the PHP package reads these
 * patterns too, in UTF-8 mode.
 */
export const SPACE_SOURCE =
  '\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff'

/** The keywords of a card security code or a PIN in text (group-free). */
export const CODE_WORD_SOURCE = `(?:cvc2?|cvv2?|csc|cid|cvn|security[${SPACE_SOURCE}_-]*code|card[${SPACE_SOURCE}_-]*verification(?:[${SPACE_SOURCE}_-]*(?:code|value|number))?|verification[${SPACE_SOURCE}_-]*code|pin(?:[${SPACE_SOURCE}_-]*(?:code|number))?)`

/**
 * A code after its keyword in text, with connecting words or punctuation between them ("my CVC is
 * 123", "cvv2: 123", "security code = 1234", "PIN 0000"). Groups: 1 the keyword, 2 the gap, 3 the
 * digits; the digits become {@link CODE_MASK}. Flags `gi`.
 *
 * The gap is connecting words and `=`, `:` or `#`, each after at most 3 other non-word characters.
 * Those three signs are kept out of the filler, so a run of them splits one way only: the match time
 * grows linearly with the gap, never exponentially. At most 32 of them: a longer gap is no code's.
 */
export const CODE_SOURCE = `\\b(${CODE_WORD_SOURCE})((?:[^\\w=:#]{0,3}(?:[=:#]|is|was|no|num|number|code|of)){0,32}[^\\w=:#]{0,3})(\\d{3,6})(?!\\d)`

/**
 * A password written as an assignment in text ("password: hunter2", "passcode=1234"). Groups: 1 the
 * keyword and its sign, 2 the value; the value becomes {@link CODE_MASK}. "Password is too short"
 * stays (no sign). Flags `gi`.
 */
export const PASSWORD_SOURCE = `\\b((?:password|passwd|passcode)[${SPACE_SOURCE}]*[:=][${SPACE_SOURCE}]*)([^${SPACE_SOURCE},;]+)`

/**
 * Key names are split into lowercase words (`cardCvc` → card, cvc; `CARD_CVC`, `card-cvc` alike):
 * these replacements run in order, then the text is lowercased and split on {@link KEY_SPLIT_SOURCE}.
 */
export const KEY_WORD_STEPS: readonly (readonly [pattern: string, replacement: string])[] = [
  ['([a-z0-9])([A-Z])', '$1 $2'],
  // The last capital of a run before a lowercase letter starts a word (`HTTPServer` → HTTP, Server): one
  // look at each capital, so a long run of capitals costs linear time.
  ['([A-Z])(?=[A-Z][a-z])', '$1 '],
]

/**
 * A key longer than this (UTF-16 code units) that holds one of {@link SECRET_KEY_WORDS} anywhere is secret without
 * being split into words: the split costs time in the key's length, and no real key is that long.
 */
export const MAX_SPLIT_KEY_LENGTH = 256

/** Splits a lowercased key into words. */
export const KEY_SPLIT_SOURCE = '[^a-z0-9]+'

/** A key holding one of these words is secret (`pin`, `card_pin`, `csc`). */
export const SECRET_KEY_WORDS: readonly string[] = ['csc', 'cid', 'cvn', 'pin']

/** A key whose words, joined, contain a match of this is secret (`cvv2`, `securityCode`, `newPassword`). */
export const SECRET_KEY_JOINED_SOURCE =
  'cvc|cvv|securitycode|cardverification|verificationcode|password|passwd|passcode'

/**
 * A key whose words, joined, match this names a card number (`cardNumber`, `cc_number`, `pan`): a
 * string or number value there with {@link CARD_KEY_MIN_DIGITS} or more digits (spaces and dashes
 * aside) keeps only its last 4, Luhn or not.
 */
export const CARD_KEY_JOINED_SOURCE = '^(?:card(?:number|no|num)|ccnumber|ccnum|creditcard(?:number)?|pan)$'

/** Fewest digits a value under a card-number key has to be masked. */
export const CARD_KEY_MIN_DIGITS = 8

/** Digits of a card number sent as a JSON number (masked when it also passes the Luhn check). */
export const CARD_NUMBER_DIGITS = { min: 13, max: 19 } as const

/** The sentence of every server's system prompt about secrets. */
export const SECRET_PROMPT_RULE = 'Never repeat card numbers, CVCs or other secrets.'

/** Known secrets shorter than this are never cut out of text (too many false hits). */
export const MIN_SECRET_LENGTH = 3

/**
 * Most sensitive input paths a server keeps for one tool (declared in `sensitivePaths` and found as
 * `writeOnly` in its schema). A tool that names more, or longer ones than {@link MAX_SENSITIVE_PATH_CHARS}
 * allows, has its whole input treated as sensitive (the path `''`): a page cannot make the server spend
 * time or memory on its list, and nothing it named goes unmasked.
 */
export const MAX_SENSITIVE_PATHS = 256

/** Most characters (UTF-16 code units) of one tool's sensitive input paths together (see {@link MAX_SENSITIVE_PATHS}). */
export const MAX_SENSITIVE_PATH_CHARS = 16_384
