<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Models\Conversation;

/**
 * The `context` extension, as @toolmark/server has it: a page load's readable context (the current record, the
 * user's selection) is kept masked beside its manifest in `toolmark_pages`, and each ordinary step shows it to
 * the model as one user-role message marked as page data, right before the latest user message (the system
 * prompt and the tool definitions keep their bytes, so prompt caching holds). Nothing of it is logged.
 */
final class PageContext
{
    /**
     * Keeps a valid `context` message of the page load. Returns why it is refused (`[reason, detail]`), or null
     * when it was kept or dropped: at most `maxContextPerSecond` per page load per second are taken.
     *
     * @param  array<string, mixed>  $message
     * @return array{0: string, 1: string}|null
     */
    public static function receive(Conversation $conversation, int $userId, array $message): ?array
    {
        $e = Wire::EXTENSIONS;
        $clientId = (string) $message['clientId'];
        if (! PerSecond::take('context', $clientId, $e['maxContextPerSecond'])) {
            return null; // dropped, unlogged: the page sends its latest context again when it changes
        }
        $page = DB::table('toolmark_pages')->where('client_id', $clientId)->first();
        if ($page === null || (int) $page->user_id !== $userId || (int) $page->conversation_id !== (int) $conversation->id) {
            return ['mismatch', 'not a page load of this conversation'];
        }
        if (mb_strlen(Llm::json($message['entries']), 'UTF-8') > $e['maxContextTotal']) {
            return ['invalid', 'too large'];
        }
        $entries = array_map(fn (array $entry): array => [
            'name' => $entry['name'],
            'description' => Mask::text($entry['description']),
            'value' => Mask::value($entry['value']),
        ], $message['entries']);
        $rev = (int) $message['rev'];
        $stored = DB::table('toolmark_pages')->where('client_id', $clientId)
            ->where(fn ($q) => $q->whereNull('context_rev')->orWhere('context_rev', '<=', $rev))
            ->update(['context' => Llm::json($entries), 'context_rev' => $rev]);

        // A database that counts only changed rows reports 0 for the same context sent again: not an older one.
        $kept = $stored === 1 ? $rev : (int) DB::table('toolmark_pages')->where('client_id', $clientId)->value('context_rev');

        return $kept > $rev ? ['old_rev', "rev {$rev} is older"] : null;
    }

    /** The context message's text for a page row: the protocol's note, then its entries as JSON; null when none. */
    public static function text(?object $page): ?string
    {
        // Decoded to objects, so an empty object stays one when it is encoded again.
        $entries = $page === null || ($page->context ?? null) === null ? [] : json_decode((string) $page->context);
        if (! is_array($entries) || $entries === []) {
            return null;
        }

        return Llm::cut(Wire::EXTENSIONS['contextNote']."\n".Llm::json($entries));
    }

    /**
     * The history with the context message right before its latest user message (first when it has none).
     *
     * @param  list<array<string, mixed>>  $history
     * @return list<array<string, mixed>>
     */
    public static function into(array $history, ?string $text): array
    {
        if ($text === null) {
            return $history;
        }
        $at = count($history) - 1;
        while ($at >= 0 && ($history[$at]['role'] ?? null) !== 'user') {
            $at--;
        }
        $at = max($at, 0);

        return [...array_slice($history, 0, $at), ['role' => 'user', 'text' => $text, 'pageData' => true], ...array_slice($history, $at)];
    }
}
