<?php

namespace Toolmark\Laravel;

use Toolmark\Laravel\Generated\Wire;

/**
 * Masking before anything is stored, queued, broadcast, logged or sent to a model, with the rules
 * of `@toolmark/protocol` (Wire::SECRETS), exactly as `@toolmark/server` masks.
 *
 * Two layers:
 * - From the page (exact): a tool's sensitive input paths, declared in its manifest entry
 *   (`sensitivePaths`) or as `writeOnly: true` in its described input schema. Values there become
 *   `[redacted]` (maskAtPaths), and the same values are cut out of any text stored in that turn (scrub).
 * - Heuristics: card numbers keep their last 4 digits, codes after a CVC or PIN keyword and
 *   passwords written as assignments become `***` (text); values under CVC-, PIN- or
 *   password-like keys become `[redacted]`, card numbers sent as JSON numbers are masked, and
 *   anything nested deeper than the limit is `[redacted]` whole (value).
 */
final class Mask
{
    /** The placeholder of a masked value. */
    public const MASKED = Wire::SECRETS['masked'];

    /** Card numbers reduced to `**** 4242`, `cvc 123` to `cvc ***`, `password: x` to `password: ***`. */
    public static function text(string $text): string
    {
        $s = Wire::SECRETS;
        $text = (string) preg_replace_callback(
            $s['cardNumber'],
            fn (array $m): string => self::lastFour((string) preg_replace('/\D/', '', $m[0])),
            $text,
        );
        $text = (string) preg_replace_callback($s['code'], fn (array $m): string => $m[1].$m[2].$s['codeMask'], $text);

        return (string) preg_replace_callback($s['password'], fn (array $m): string => $m[1].$s['codeMask'], $text);
    }

    /**
     * Assistant text as it is stored and streamed: the known secrets' forms (secretForms()) cut
     * out, then text(), then what text() left of a known secret cut out too (`**** 4242` of a card
     * the page was given). The streamed text (TextStream) is masked with the same function.
     *
     * @param list<string> $forms secretForms() of the values known to be secret
     */
    public static function assistantText(string $text, array $forms = []): string
    {
        return $forms === [] ? self::text($text) : self::scrub(self::text(self::scrub($text, $forms)), $forms);
    }

    /**
     * A copy of a JSON value with text() (after scrub() of `$secrets`) on every string, values under
     * sensitive keys replaced by `[redacted]` whatever their type, card numbers under card-number keys
     * and Luhn-valid card numbers sent as JSON numbers masked, and what is nested too deep replaced whole.
     *
     * @param list<string> $secrets
     */
    public static function value(mixed $value, array $secrets = [], int $depth = 0): mixed
    {
        // Below depth 0 the list is the one this function ordered at depth 0.
        $secrets = $depth === 0 ? self::ordered($secrets) : $secrets;
        if (is_string($value)) {
            return self::text(self::scrubOrdered($value, $secrets));
        }
        if (is_int($value) || is_float($value)) {
            $digits = self::integerDigits($value);
            $card = Wire::SECRETS['cardNumberDigits'];

            return $digits !== null && strlen($digits) >= $card['min'] && strlen($digits) <= $card['max'] && self::luhn($digits)
                ? self::lastFour($digits) : $value;
        }
        if ($value instanceof \stdClass) {
            return self::asObject(self::value((array) $value, $secrets, $depth));
        }
        if (! is_array($value)) {
            return $value;
        }
        if ($depth >= Wire::SECRETS['maxDepth']) {
            return self::MASKED;
        }
        $out = [];
        foreach ($value as $key => $item) {
            if (is_string($key) && $item !== null && self::isSensitiveKey($key)) {
                $out[$key] = self::MASKED;

                continue;
            }
            $card = is_string($key) && self::isCardKey($key) ? self::cardField($item) : null;
            $out[$key] = $card ?? self::value($item, $secrets, $depth + 1);
        }

        return $out;
    }

    /**
     * A copy of a JSON value with text() (after scrub() of `$secrets`) on every string, keys kept as
     * they are: for a described tool's schemas, whose `password` or `pin` properties are field
     * definitions, not values.
     *
     * @param list<string> $secrets
     */
    public static function strings(mixed $value, array $secrets = [], int $depth = 0): mixed
    {
        // Below depth 0 the list is the one this function ordered at depth 0.
        $secrets = $depth === 0 ? self::ordered($secrets) : $secrets;
        if (is_string($value)) {
            return self::text(self::scrubOrdered($value, $secrets));
        }
        if ($value instanceof \stdClass) {
            return self::asObject(self::strings((array) $value, $secrets, $depth));
        }
        if (! is_array($value)) {
            return $value;
        }
        if ($depth >= Wire::SECRETS['maxDepth']) {
            return self::MASKED;
        }

        return array_map(fn (mixed $item): mixed => self::strings($item, $secrets, $depth + 1), $value);
    }

    /**
     * A tool result as it may be kept: value() on everything, except that a describe's `ok` data (a
     * manifest entry with its schemas) gets strings() only.
     *
     * @param array<string, mixed> $result
     * @param list<string> $secrets
     * @return array<string, mixed>
     */
    public static function result(array $result, string $kind, array $secrets = []): array
    {
        return $kind === 'describe' && ($result['status'] ?? null) === 'ok'
            ? self::strings($result, $secrets)
            : self::value($result, $secrets);
    }

    /** True for keys naming a card security code, a PIN or a password in any spelling (`cardCvc`, `CVV2`, `pin`, `newPassword`). */
    public static function isSensitiveKey(string $key): bool
    {
        $joined = self::joinedOf($key);
        if (preg_match(Wire::SECRETS['secretKeyJoined'], $joined) === 1) {
            return true;
        }
        // Split into words only when one of the secret words is in it; a very long such key is secret unsplit.
        $inside = false;
        foreach (Wire::SECRETS['secretKeyWords'] as $word) {
            $inside = $inside || str_contains($joined, $word);
        }
        if (! $inside) {
            return false;
        }

        return Llm::units($key) > Wire::SECRETS['maxSplitKeyLength']
            || array_intersect(self::keyWords($key), Wire::SECRETS['secretKeyWords']) !== [];
    }

    /** The key's words joined: lowercased, all but letters and digits left out (what implode('', keyWords()) is). */
    private static function joinedOf(string $key): string
    {
        return (string) preg_replace('/[^a-z0-9]+/', '', strtolower($key));
    }

    /** A copy of the value with `[redacted]` at every sensitive path (`card.cvc`, `cards[].cvc`, `''`) that holds one. */
    public static function atPaths(mixed $value, array $paths): mixed
    {
        foreach ($paths as $path) {
            $value = self::maskAt($value, self::segments((string) $path), 0, 0);
        }

        return $value;
    }

    /**
     * The string and number values at the sensitive paths (leaves below them too), trimmed, at least
     * the minimum secret length, without duplicates: what scrub() cuts out of text.
     *
     * @return list<string>
     */
    public static function secretsAt(mixed $value, array $paths): array
    {
        $out = [];
        foreach ($paths as $path) {
            self::collect($value, self::segments((string) $path), 0, 0, $out);
        }
        $out = array_map('trim', $out);

        return array_values(array_unique(array_filter($out, fn (string $s): bool => strlen($s) >= Wire::SECRETS['minSecretLength'])));
    }

    /** The known secrets plus what text() leaves of each (`**** 4242`): none of a known secret is kept. */
    public static function secretForms(array $secrets): array
    {
        $out = [];
        foreach ($secrets as $secret) {
            if (strlen($secret) < Wire::SECRETS['minSecretLength']) {
                continue;
            }
            $out[$secret] = true;
            $masked = self::text($secret);
            if ($masked !== $secret && strlen($masked) >= Wire::SECRETS['minSecretLength']) {
                $out[$masked] = true;
            }
        }

        return array_map('strval', array_keys($out));
    }

    /** The text with every occurrence of each secret (longest first) replaced by `[redacted]`. */
    public static function scrub(string $text, array $secrets = []): string
    {
        return self::scrubOrdered($text, self::ordered($secrets));
    }

    /**
     * The secrets scrub() cuts out, longest first, the too-short ones left out. value(), strings() and
     * scrubValue() order their list once (at depth 0) and hand it down, so the strings of a large value
     * are not sorted each.
     *
     * @param array<string> $secrets
     * @return list<string>
     */
    private static function ordered(array $secrets): array
    {
        $kept = array_values(array_filter($secrets, fn (string $s): bool => strlen($s) >= Wire::SECRETS['minSecretLength']));
        usort($kept, fn (string $a, string $b): int => strlen($b) <=> strlen($a));

        return $kept;
    }

    /** @param list<string> $ordered as ordered() returns them */
    private static function scrubOrdered(string $text, array $ordered): string
    {
        foreach ($ordered as $secret) {
            $text = str_replace($secret, self::MASKED, $text);
        }

        return $text;
    }

    /** A copy of a JSON value with scrub() on every string (keys are kept). */
    public static function scrubValue(mixed $value, array $secrets, int $depth = 0): mixed
    {
        // Below depth 0 the list is the one this function ordered at depth 0.
        $secrets = $depth === 0 ? self::ordered($secrets) : $secrets;
        if (is_string($value)) {
            return self::scrubOrdered($value, $secrets);
        }
        if ($value instanceof \stdClass && $secrets !== []) {
            return self::asObject(self::scrubValue((array) $value, $secrets, $depth));
        }
        if (! is_array($value) || $secrets === []) {
            return $value;
        }
        if ($depth >= Wire::SECRETS['maxDepth']) {
            return self::MASKED;
        }

        return array_map(fn (mixed $item): mixed => self::scrubValue($item, $secrets, $depth + 1), $value);
    }

    /**
     * The sensitive input paths a JSON Schema declares with `writeOnly: true`, following
     * `properties`, `items`, `prefixItems` and `anyOf`/`oneOf`/`allOf`. More than
     * `maxSensitivePaths` paths, or more than `maxSensitivePathChars` characters of them, give
     * `['']`: the whole input.
     *
     * @return list<string>
     */
    public static function sensitivePathsOf(mixed $schema): array
    {
        $found = self::noPaths();
        self::walkSchema($schema, '', 0, $found);

        return self::withinLimits($found);
    }

    /**
     * One tool's sensitive paths from several lists (its manifest entry, its described schema),
     * within the limits of {@see sensitivePathsOf()}.
     *
     * @param  list<string>  ...$lists
     * @return list<string>
     */
    public static function joinPaths(array ...$lists): array
    {
        $found = self::noPaths();
        foreach ($lists as $list) {
            foreach ($list as $path) {
                self::addPath($found, $path);
            }
        }

        return self::withinLimits($found);
    }

    /**
     * A tool's `sensitivePaths` from its manifest entry, when it is a list (strings only), within
     * the limits of {@see joinPaths()}.
     *
     * @return list<string>
     */
    public static function declaredPaths(mixed $entry): array
    {
        $list = is_array($entry) ? ($entry['sensitivePaths'] ?? null) : null;

        return is_array($list) ? self::joinPaths(array_values(array_filter($list, 'is_string'))) : [];
    }

    /** @return array{paths: list<string>, seen: array<string, true>, chars: int, over: bool} */
    private static function noPaths(): array
    {
        return ['paths' => [], 'seen' => [], 'chars' => 0, 'over' => false];
    }

    /** @param  array{paths: list<string>, seen: array<string, true>, chars: int, over: bool}  $found */
    private static function addPath(array &$found, string $path): void
    {
        if ($found['over'] || isset($found['seen'][$path])) {
            return;
        }
        $found['chars'] += Llm::units($path);
        if (count($found['paths']) >= Wire::SECRETS['maxSensitivePaths'] || $found['chars'] > Wire::SECRETS['maxSensitivePathChars']) {
            $found['over'] = true;

            return;
        }
        $found['paths'][] = $path;
        $found['seen'][$path] = true;
    }

    /**
     * @param  array{paths: list<string>, seen: array<string, true>, chars: int, over: bool}  $found
     * @return list<string>
     */
    private static function withinLimits(array $found): array
    {
        return $found['over'] ? [''] : $found['paths'];
    }

    /** A copy made from a `stdClass` (see Json): an object again, unless it was replaced whole. */
    private static function asObject(mixed $copy): mixed
    {
        return is_array($copy) ? (object) $copy : $copy;
    }

    private static function lastFour(string $digits): string
    {
        return Wire::SECRETS['cardMaskPrefix'].substr($digits, -4);
    }

    /** @return list<string> */
    private static function keyWords(string $key): array
    {
        foreach (Wire::SECRETS['keyWordSteps'] as [$pattern, $replacement]) {
            $key = (string) preg_replace($pattern, $replacement, $key);
        }

        return array_values(array_filter(preg_split(Wire::SECRETS['keySplit'], strtolower($key)) ?: [], fn (string $w): bool => $w !== ''));
    }

    private static function isCardKey(string $key): bool
    {
        return preg_match(Wire::SECRETS['cardKeyJoined'], self::joinedOf($key)) === 1;
    }

    /** A card number under a card-number key, Luhn or not, as `**** 4242`; null for anything else. */
    private static function cardField(mixed $value): ?string
    {
        $text = is_int($value) && $value > 0 ? (string) $value : $value;
        if (! is_string($text) || preg_match('/^[\d -]+$/', $text) !== 1) {
            return null;
        }
        $digits = (string) preg_replace('/\D/', '', $text);
        $length = strlen($digits);

        return $length >= Wire::SECRETS['cardKeyMinDigits'] && $length <= Wire::SECRETS['cardNumberDigits']['max']
            ? self::lastFour($digits) : null;
    }

    /** The digits of a positive whole number (a float too, as JSON numbers may decode), else null. */
    private static function integerDigits(int|float $value): ?string
    {
        if (is_int($value)) {
            return $value > 0 ? (string) $value : null;
        }

        return $value > 0 && $value < 1e19 && floor($value) === $value ? sprintf('%.0f', $value) : null;
    }

    private static function luhn(string $digits): bool
    {
        $sum = 0;
        $n = strlen($digits);
        for ($i = 0; $i < $n; $i++) {
            $d = (int) $digits[$n - 1 - $i];
            if ($i % 2 === 1) {
                $d *= 2;
                if ($d > 9) {
                    $d -= 9;
                }
            }
            $sum += $d;
        }

        return $sum % 10 === 0;
    }

    /** @return list<string> a path pattern's segments; `[]` is any list index */
    private static function segments(string $path): array
    {
        $out = [];
        if ($path === '') {
            return $out;
        }
        foreach (explode('.', $path) as $part) {
            if (preg_match('/^([^[\]]*)((?:\[\])*)$/', $part, $m) !== 1) {
                return ["\0invalid"];
            }
            if ($m[1] !== '') {
                $out[] = $m[1];
            }
            for ($i = 0; $i < strlen($m[2]); $i += 2) {
                $out[] = '[]';
            }
        }

        return $out;
    }

    private static function maskAt(mixed $value, array $path, int $at, int $depth): mixed
    {
        if ($at === count($path)) {
            return self::MASKED;
        }
        if ($value instanceof \stdClass) {
            return self::asObject(self::maskAt((array) $value, $path, $at, $depth));
        }
        if ($depth >= Wire::SECRETS['maxDepth'] || ! is_array($value)) {
            return $value;
        }
        $segment = $path[$at];
        if (array_is_list($value) && $segment === '[]') {
            return array_map(fn (mixed $v): mixed => self::maskAt($v, $path, $at + 1, $depth + 1), $value);
        }
        if (! array_key_exists($segment, $value) || (array_is_list($value) && $value !== [] && preg_match('/^(0|[1-9]\d*)$/', $segment) !== 1)) {
            return $value;
        }
        $value[$segment] = self::maskAt($value[$segment], $path, $at + 1, $depth + 1);

        return $value;
    }

    private static function collect(mixed $value, array $path, int $at, int $depth, array &$out): void
    {
        if ($value === null || $depth > Wire::SECRETS['maxDepth']) {
            return;
        }
        if ($value instanceof \stdClass) {
            $value = (array) $value;
        }
        if ($at === count($path)) {
            if (is_string($value) || is_int($value) || is_float($value)) {
                $out[] = (string) $value;
            } elseif (is_array($value)) {
                foreach ($value as $item) {
                    self::collect($item, $path, $at, $depth + 1, $out);
                }
            }

            return;
        }
        if (! is_array($value)) {
            return;
        }
        $segment = $path[$at];
        if ($segment === '[]' && array_is_list($value)) {
            foreach ($value as $item) {
                self::collect($item, $path, $at + 1, $depth + 1, $out);
            }
        } elseif (array_key_exists($segment, $value)) {
            self::collect($value[$segment], $path, $at + 1, $depth + 1, $out);
        }
    }

    /** @param  array{paths: list<string>, seen: array<string, true>, chars: int, over: bool}  $out */
    private static function walkSchema(mixed $schema, string $path, int $depth, array &$out): void
    {
        if ($schema instanceof \stdClass) {
            $schema = (array) $schema;
        }
        if (! is_array($schema) || array_is_list($schema) && $schema !== [] || $depth > 32 || $out['over']) {
            return;
        }
        if (($schema['writeOnly'] ?? null) === true) {
            self::addPath($out, $path);

            return;
        }
        foreach (['anyOf', 'oneOf', 'allOf'] as $key) {
            if (is_array($schema[$key] ?? null)) {
                foreach ($schema[$key] as $branch) {
                    self::walkSchema($branch, $path, $depth + 1, $out);
                }
            }
        }
        $properties = $schema['properties'] ?? null;
        if (is_array($properties) || $properties instanceof \stdClass) {
            foreach ((array) $properties as $key => $child) {
                if (preg_match('/^[^.[\]]+$/', (string) $key) === 1) {
                    self::walkSchema($child, $path === '' ? (string) $key : "{$path}.{$key}", $depth + 1, $out);
                }
            }
        }
        $items = array_merge([$schema['items'] ?? null], is_array($schema['prefixItems'] ?? null) ? $schema['prefixItems'] : []);
        foreach ($items as $item) {
            self::walkSchema($item, "{$path}[]", $depth + 1, $out);
        }
    }
}
