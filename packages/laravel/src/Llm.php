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
            'description' => self::PAGE_CALL_PREAMBLE . "\n\n" . self::renderManifest($tools),
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

    /** JSON for prompts and provider requests: slashes and Unicode as-is, like JSON.stringify. */
    public static function json(mixed $value): string
    {
        return json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
    }
}
