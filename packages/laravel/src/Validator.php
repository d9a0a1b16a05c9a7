<?php

namespace Toolmark\Laravel;

use stdClass;
use Toolmark\Laravel\Generated\Wire;

/**
 * The page → agent checks of `validateMessage(value, 'toAgent')` in @toolmark/protocol, on a message
 * decoded with objects kept as stdClass (so `{}` and `[]` stay apart). Top-level messages, tool
 * results, issues and changes are strict; manifest entries and hints accept unknown properties.
 * The tables (allowed keys, statuses, codes, patterns) come from Wire::VALIDATION.
 */
final class Validator
{
    /** Why the message is not a valid page → agent message, or null when it is. */
    public static function problem(mixed $m): ?string
    {
        $v = Wire::VALIDATION;
        if (! $m instanceof stdClass) {
            return 'message must be an object';
        }
        $protocol = $m->protocol ?? null;
        if (! property_exists($m, 'protocol') || $protocol !== $v['protocol']) {
            return property_exists($m, 'protocol') ? Wire::ERROR_MESSAGES['unsupportedProtocol'] : 'missing protocol';
        }
        $type = $m->type ?? null;
        if (in_array($type, $v['toPageTypes'], true)) {
            return 'wrong direction: an agent→page message sent to the agent';
        }
        if (! is_string($type) || ! isset($v['messageKeys'][$type])) {
            return 'unknown message type';
        }
        if (! self::strict($m, $v['messageKeys'][$type])) {
            return "{$type}: unknown property";
        }
        if (! self::isId($m->clientId ?? null)) {
            return "{$type}: clientId must be a non-empty string of at most 256 characters";
        }

        return match ($type) {
            'manifest' => self::manifest($m),
            'changed' => self::isRev($m->rev ?? null) ? null : 'changed: rev must be an integer >= 0',
            'result' => self::isId($m->id ?? null) ? self::result($m->result ?? null) : 'result: id must be a non-empty string of at most 256 characters',
            'confirmed' => self::isId($m->confirmId ?? null) ? self::result($m->result ?? null) : 'confirmed: confirmId must be a non-empty string of at most 256 characters',
        };
    }

    /**
     * Why the message is not a valid page → agent message of an opt-in extension (`validateExtensionMessage(value,
     * 'toAgent')` in @toolmark/protocol/extensions): an `extensions` offer, a `progress` or a `context` message. Null
     * when it is one.
     */
    public static function extensionProblem(mixed $m): ?string
    {
        $e = Wire::EXTENSIONS;
        if (! $m instanceof stdClass) {
            return 'not an object';
        }
        if (($m->protocol ?? null) !== Wire::PROTOCOL) {
            return 'unsupported protocol';
        }
        $type = $m->type ?? null;
        if ($type === 'extensions') {
            if (! self::strict($m, ['protocol', 'type', 'clientId', 'offer'])) {
                return 'extensions: unknown property offer';
            }
            if (! self::isId($m->clientId ?? null)) {
                return 'extensions: clientId must be a non-empty string';
            }
            $offer = $m->offer ?? null;
            if (! is_array($offer) || count($offer) > $e['maxExtensions']) {
                return "extensions: offer must be an array of at most {$e['maxExtensions']} names";
            }
            foreach ($offer as $name) {
                if (! is_string($name) || preg_match($e['namePattern'], $name) !== 1) {
                    return 'extensions: each name must match the extension name pattern';
                }
            }

            return count(array_unique($offer)) === count($offer) ? null : 'extensions: offer must be unique';
        }
        if ($type === 'context') {
            return self::context($m);
        }
        if ($type !== 'progress') {
            return 'not an extension message';
        }
        if (! self::strict($m, ['protocol', 'type', 'clientId', 'id', 'fraction', 'message', 'data'])) {
            return 'progress: unknown property';
        }
        if (! self::isId($m->clientId ?? null)) {
            return 'progress: clientId must be a non-empty string';
        }
        if (! self::isId($m->id ?? null)) {
            return 'progress: id must be a non-empty string';
        }
        if (property_exists($m, 'fraction') && (! (is_int($m->fraction) || is_float($m->fraction)) || $m->fraction < 0 || $m->fraction > 1)) {
            return 'progress: fraction must be a number from 0 to 1';
        }
        if (property_exists($m, 'message') && (! is_string($m->message) || mb_strlen($m->message, 'UTF-8') > $e['maxProgressMessage'])) {
            return "progress: message must be a string of at most {$e['maxProgressMessage']} characters";
        }
        if (! property_exists($m, 'fraction') && ! property_exists($m, 'message') && ! property_exists($m, 'data')) {
            return 'progress: needs fraction, message or data';
        }

        return null;
    }

    /** Why a `context` message (the page's readable context) is not a valid one; null when it is. */
    private static function context(stdClass $m): ?string
    {
        $e = Wire::EXTENSIONS;
        if (! self::strict($m, ['protocol', 'type', 'clientId', 'rev', 'entries'])) {
            return 'context: unknown property';
        }
        if (! self::isId($m->clientId ?? null)) {
            return 'context: clientId must be a non-empty string';
        }
        if (! self::isRev($m->rev ?? null)) {
            return 'context: rev must be an integer >= 0';
        }
        $entries = $m->entries ?? null;
        if (! is_array($entries) || count($entries) > $e['maxContextEntries']) {
            return "context: entries must be an array of at most {$e['maxContextEntries']}";
        }
        foreach ($entries as $entry) {
            if (! $entry instanceof stdClass) {
                return 'context: each entry must be an object';
            }
            if (! self::strict($entry, ['name', 'description', 'value'])) {
                return 'context: entry: unknown property';
            }
            if (! is_string($entry->name ?? null) || preg_match($e['contextNamePattern'], $entry->name) !== 1) {
                return 'context: entry name must match the tool name pattern';
            }
            $description = $entry->description ?? null;
            if (! is_string($description) || mb_strlen($description, 'UTF-8') > $e['maxContextDescription']) {
                return "context: entry description must be a string of at most {$e['maxContextDescription']} characters";
            }
            if (! property_exists($entry, 'value')) {
                return 'context: entry value is missing';
            }
        }

        return null;
    }

    private static function manifest(stdClass $m): ?string
    {
        if (! self::isRev($m->rev ?? null)) {
            return 'manifest: rev must be an integer >= 0';
        }
        if (! is_array($m->tools ?? null)) {
            return 'manifest: tools must be an array';
        }
        $v = Wire::VALIDATION;
        foreach ($m->tools as $entry) {
            if (! $entry instanceof stdClass) {
                return 'manifest: each tool must be an object';
            }
            if (! self::matches($entry->name ?? null, $v['toolNamePattern'])) {
                return 'manifest: tool name must match ^[A-Za-z0-9_.-]{1,128}$';
            }
            if (! self::matches($entry->llmName ?? null, $v['llmNamePattern'])) {
                return 'manifest: llmName must match ^[a-zA-Z0-9_-]{1,64}$';
            }
            if (property_exists($entry, 'title') && ! is_string($entry->title)) {
                return 'manifest: title must be a string';
            }
            if (! is_string($entry->description ?? null)) {
                return 'manifest: description must be a string';
            }
            if (property_exists($entry, 'mode') && ! is_string($entry->mode)) {
                return 'manifest: mode must be a string';
            }
            $hints = $entry->hints ?? null;
            if (! $hints instanceof stdClass) {
                return 'manifest: hints must be an object';
            }
            foreach ($v['hints'] as $hint) {
                if (property_exists($hints, $hint) && ! is_bool($hints->{$hint})) {
                    return 'manifest: known hints must be booleans';
                }
            }
        }

        return null;
    }

    private static function result(mixed $r): ?string
    {
        $v = Wire::VALIDATION;
        if (! $r instanceof stdClass) {
            return 'result must be an object';
        }
        $status = $r->status ?? null;
        if (! is_string($status) || ! isset($v['resultKeys'][$status])) {
            return 'result: unknown status';
        }
        if (! self::strict($r, $v['resultKeys'][$status])) {
            return "{$status} result: unknown property";
        }

        return match ($status) {
            'ok' => null,
            'invalid' => self::issues($r->issues ?? null),
            'refused' => self::refused($r),
            'needs_confirmation' => self::needsConfirmation($r),
            'cancelled' => in_array($r->by ?? null, $v['cancelledBy'], true) ? null : 'cancelled result: by must be operator, signal or policy',
            'error' => is_string($r->message ?? null) ? null : 'error result: message must be a string',
        };
    }

    private static function issues(mixed $issues): ?string
    {
        if (! is_array($issues)) {
            return 'invalid result: issues must be an array';
        }
        foreach ($issues as $issue) {
            if (! $issue instanceof stdClass) {
                return 'invalid result: each issue must be an object';
            }
            if (! self::strict($issue, Wire::VALIDATION['issueKeys'])) {
                return 'invalid result: unknown issue property';
            }
            if (! is_string($issue->path ?? null) || ! is_string($issue->message ?? null)) {
                return 'invalid result: issue path and message must be strings';
            }
        }

        return null;
    }

    private static function refused(stdClass $r): ?string
    {
        $v = Wire::VALIDATION;
        $code = $r->code ?? null;
        if (! in_array($code, $v['refusedCodes'], true)) {
            return 'refused result: unknown code';
        }
        if (! is_string($r->message ?? null)) {
            return 'refused result: message must be a string';
        }
        if (property_exists($r, 'rev')) {
            if (! in_array($code, $v['refusedWithRev'], true)) {
                return 'refused result: rev only accompanies unknown_tool and stale';
            }
            if (! self::isRev($r->rev)) {
                return 'refused result: rev must be an integer >= 0';
            }
        }

        return null;
    }

    private static function needsConfirmation(stdClass $r): ?string
    {
        if (! self::isId($r->confirmId ?? null)) {
            return 'needs_confirmation result: confirmId must be a non-empty string of at most 256 characters';
        }
        if (! is_string($r->summary ?? null)) {
            return 'needs_confirmation result: summary must be a string';
        }
        if (! is_array($r->changes ?? null)) {
            return 'needs_confirmation result: changes must be an array';
        }
        foreach ($r->changes as $change) {
            if (! $change instanceof stdClass) {
                return 'needs_confirmation result: each change must be an object';
            }
            if (! self::strict($change, Wire::VALIDATION['changeKeys'])) {
                return 'needs_confirmation result: unknown change property';
            }
            if (! is_string($change->path ?? null)) {
                return 'needs_confirmation result: change path must be a string';
            }
        }

        return null;
    }

    /** True when every property of the object is one of the allowed keys. */
    private static function strict(stdClass $object, array $allowed): bool
    {
        foreach (get_object_vars($object) as $key => $_) {
            if (! in_array((string) $key, $allowed, true)) {
                return false;
            }
        }

        return true;
    }

    /** A non-empty string of at most MAX_ID_LENGTH code points. */
    private static function isId(mixed $value): bool
    {
        return is_string($value) && $value !== '' && mb_strlen($value, 'UTF-8') <= Wire::MAX_ID_LENGTH;
    }

    /** An integer revision in [0, 2^53 - 1]; a whole float (`7.0`) counts, as in JavaScript. */
    private static function isRev(mixed $value): bool
    {
        if (is_float($value) && is_finite($value) && floor($value) === $value && $value <= Wire::VALIDATION['maxRev']) {
            $value = (int) $value;
        }

        return is_int($value) && $value >= 0 && $value <= Wire::VALIDATION['maxRev'];
    }

    private static function matches(mixed $value, string $pattern): bool
    {
        return is_string($value) && preg_match($pattern, $value) === 1;
    }
}
