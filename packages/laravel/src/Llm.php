<?php

namespace Toolmark\Laravel;

use Toolmark\Laravel\Generated\Wire;

/**
 * What the model sees of the page: exactly two tools, `page_call` (its description carries the
 * rendered manifest) and `page_describe`, byte for byte as bridge protocol v1 defines them.
 */
final class Llm
{
    /** The fixed start of page_call's description. */
    public const PAGE_CALL_PREAMBLE = Wire::PAGE_CALL_PREAMBLE;

    /** page_describe's description. */
    public const PAGE_DESCRIBE_DESCRIPTION = Wire::PAGE_DESCRIBE_DESCRIPTION;

    /** The rendered manifest of a page without tools. */
    public const EMPTY_MANIFEST = Wire::EMPTY_MANIFEST;

    /** The note of the untrusted envelope. */
    public const UNTRUSTED_NOTE = Wire::UNTRUSTED_NOTE;

    private const HINTS = Wire::VALIDATION['hints'];

    /**
     * "Page tools:" then "- name — description [hints: …]" per tool, sorted by name.
     *
     * @param list<array<string, mixed>> $tools manifest summary entries
     */
    public static function renderManifest(array $tools): string
    {
        if ($tools === []) {
            return self::EMPTY_MANIFEST;
        }
        usort($tools, fn (array $a, array $b): int => strcmp((string) $a['name'], (string) $b['name']));
        $text = 'Page tools:';
        foreach ($tools as $tool) {
            $description = trim((string) preg_replace('/\s+/u', ' ', (string) ($tool['description'] ?? '')));
            $hints = is_array($tool['hints'] ?? null) ? $tool['hints'] : [];
            $active = array_values(array_filter(self::HINTS, fn (string $hint): bool => ($hints[$hint] ?? null) === true));
            $name = (string) preg_replace('/\s+/u', ' ', (string) $tool['name']);
            $text .= "\n- {$name} — " . ($description === '' ? '' : "{$description} ")
                . '[hints: ' . ($active === [] ? 'none' : implode(', ', $active)) . ']';
        }

        return $text;
    }

    /**
     * page_call for the current tool list: the preamble, a blank line, the rendered manifest.
     *
     * @param list<array<string, mixed>> $tools
     * @return array<string, mixed>
     */
    public static function pageCallTool(array $tools): array
    {
        return [
            'name' => 'page_call',
            'description' => self::PAGE_CALL_PREAMBLE . "\n\n" . self::renderManifest(self::boundManifest($tools)),
            'input_schema' => [
                'type' => 'object',
                'properties' => [
                    'tool' => ['type' => 'string', 'description' => 'Exact tool name from the page manifest, e.g. signup.fill'],
                    'input' => ['type' => 'object', 'description' => 'Tool input; {} when the tool takes none'],
                ],
                'required' => ['tool', 'input'],
                'additionalProperties' => false,
            ],
        ];
    }

    /** @return array<string, mixed> */
    public static function pageDescribeTool(): array
    {
        return [
            'name' => 'page_describe',
            'description' => self::PAGE_DESCRIBE_DESCRIPTION,
            'input_schema' => [
                'type' => 'object',
                'properties' => [
                    'tool' => ['type' => 'string', 'description' => 'Exact tool name from the page manifest'],
                ],
                'required' => ['tool'],
                'additionalProperties' => false,
            ],
        ];
    }

    /**
     * The envelope for results of untrustedContent tools and for every confirmed outcome.
     *
     * @param array<string, mixed> $result
     * @return array{untrustedContent: true, note: string, result: array<string, mixed>}
     */
    public static function wrapUntrusted(array $result): array
    {
        return ['untrustedContent' => true, 'note' => self::UNTRUSTED_NOTE, 'result' => $result];
    }

    /**
     * What the model gets for a page tool's result (its JSON is the tool message's content): for an
     * `ok` result with data of a `structured` tool (its manifest entry says it declares an output
     * schema, checked by a development page), the data plus Wire::STRUCTURED_NOTE; any other result as is.
     * Wrapped by wrapUntrusted() when `$untrusted`. The same shape as `modelResult` of `@toolmark/protocol`.
     *
     * @param array<string, mixed> $result
     * @return array<string, mixed>
     */
    public static function modelResult(array $result, bool $structured, bool $untrusted): array
    {
        if ($structured && ($result['status'] ?? null) === 'ok' && array_key_exists('data', $result)) {
            $result = ['status' => 'ok', 'data' => $result['data'], 'note' => Wire::STRUCTURED_NOTE];
        }

        return $untrusted ? self::wrapUntrusted($result) : $result;
    }

    /**
     * Whether a manifest entry marks its tool `structured` (it declares an output schema).
     *
     * @param array<string, mixed>|null $entry
     */
    public static function structured(?array $entry): bool
    {
        return ($entry['structured'] ?? null) === true;
    }

    /** The length of a text in UTF-16 code units, as JavaScript's `length` and a page's `maxlength` count. */
    public static function units(string $text): int
    {
        return intdiv(strlen((string) mb_convert_encoding($text, 'UTF-16LE', 'UTF-8')), 2);
    }

    /** A text (assistant text, a chat line, a confirmation's summary) cut to Wire::MAX_PROVIDER_TEXT code units, whole characters only. */
    public static function cut(string $text): string
    {
        $max = Wire::MAX_PROVIDER_TEXT;
        if (strlen($text) <= $max || self::units($text) <= $max) {
            return $text;
        }
        $cut = mb_substr($text, 0, $max);
        while (($units = self::units($cut)) > $max) {
            // Each character left out is one or two code units.
            $cut = mb_substr($cut, 0, mb_strlen($cut) - intdiv($units - $max + 1, 2));
        }

        return $cut;
    }

    /**
     * A tool result's JSON as the model gets it and the conversation stores it: as is up to
     * Wire::MAX_PROVIDER_TEXT code units, else an error result that says so (a cut JSON text would not parse).
     */
    public static function boundContent(string $content): string
    {
        $max = Wire::MAX_PROVIDER_TEXT;
        if (strlen($content) <= $max || ($units = self::units($content)) <= $max) {
            return $content;
        }

        return self::json(['status' => 'error', 'message' => "The page's result is too large for the model ({$units} characters; the limit is {$max})"]);
    }

    /**
     * The page's tools that fit Wire::MAX_MANIFEST_CHARS, in the page's order (all of them when they
     * fit): each counts its name, description, title and llmName plus 64; one too long for what is
     * left is skipped, and smaller ones after it may still fit.
     *
     * @param list<array<string, mixed>> $tools
     * @return list<array<string, mixed>>
     */
    public static function boundManifest(array $tools): array
    {
        $chars = array_map(fn (array $tool): int => self::units(self::text($tool['name'] ?? ''))
            + self::units(self::text($tool['description'] ?? '')) + self::units(self::text($tool['title'] ?? ''))
            + self::units(self::text($tool['llmName'] ?? '')) + 64, $tools);
        if (array_sum($chars) <= Wire::MAX_MANIFEST_CHARS) {
            return $tools;
        }
        $kept = [];
        $left = Wire::MAX_MANIFEST_CHARS;
        foreach ($tools as $i => $tool) {
            if ($chars[$i] <= $left) {
                $kept[] = $tool;
                $left -= $chars[$i];
            }
        }

        return $kept;
    }

    /** A manifest field as text (a page may send anything in a summary entry). */
    private static function text(mixed $value): string
    {
        return is_scalar($value) ? (string) $value : '';
    }

    /** JSON for prompts and provider requests: slashes and Unicode as-is, like JSON.stringify. */
    public static function json(mixed $value): string
    {
        return json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
    }
}
