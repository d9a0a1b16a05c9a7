<?php

namespace Toolmark\Laravel\Agent;

use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Events\ToolmarkTool;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Mask;

/**
 * The page calls the agent makes, as the chat shows them (@toolmark/server's ToolPart):
 * `{callId, tool, title?, input, state, summary?, confirmId?}`. `callId` is the model's tool-call
 * id, the same in every state; `input` a short rendering of the call's input, masked at the tool's
 * sensitive paths and by the heuristics; `state` is `running` when the call is sent, `waiting`
 * (with the page's `confirmId`) on needs_confirmation, then `done`, `failed` or `cancelled` with a
 * short `summary`. Each state is broadcast as `.toolmark.tool` and the tool line that records it
 * keeps it (`part`), so the chat's history replays it: the last part of a callId is its state.
 */
final class ToolParts
{
    /** The longest input, title or summary a part carries (characters). */
    public const MAX_TEXT = 160;

    /**
     * The `running` part of a page_call.
     *
     * @param array<string, mixed> $input the call's input, already `[redacted]` at the tool's sensitive paths
     * @param list<string> $forms Mask::secretForms() of the turn's secrets
     * @return array<string, string>
     */
    public static function running(string $callId, string $tool, ?string $title, array $input, array $forms): array
    {
        $part = ['callId' => $callId, 'tool' => $tool];
        if (is_string($title) && $title !== '') {
            $part['title'] = self::short(Mask::assistantText($title, $forms));
        }
        $part['input'] = self::render($input, $forms);
        $part['state'] = 'running';

        return $part;
    }

    /**
     * A short, masked rendering of a call's input: compact JSON, cut with an ellipsis when long.
     *
     * @param list<string> $forms
     */
    public static function render(array $input, array $forms): string
    {
        $masked = Mask::value($input, $forms);

        return self::short(Mask::assistantText(Llm::json($masked === [] ? new \stdClass() : $masked), $forms));
    }

    /**
     * The part in the state the page's answer (or its absence) puts it in, with the outcome in a few
     * words as its summary (the confirmation's summary while it waits).
     *
     * @param array<string, mixed> $part
     * @param array<string, mixed> $result the masked result
     * @param list<string> $forms
     * @return array<string, string>
     */
    public static function outcome(array $part, array $result, bool $timedOut, array $forms = [], ?string $summary = null): array
    {
        $status = $result['status'] ?? 'error';
        $state = match (true) {
            $timedOut => 'failed',
            $status === 'ok' => 'done',
            $status === 'needs_confirmation' => 'waiting',
            $status === 'cancelled' => 'cancelled',
            default => 'failed',
        };
        unset($part['confirmId'], $part['summary']);
        $part['state'] = $state;
        $part['summary'] = self::short(Mask::text(Mask::scrub($summary ?? self::summary($result, $timedOut), $forms)));
        if ($status === 'needs_confirmation' && ! $timedOut && is_string($result['confirmId'] ?? null)) {
            $part['confirmId'] = $result['confirmId'];
        }

        return $part;
    }

    /**
     * The outcome in a few words, as @toolmark/server's tool lines end: `ok (3 results)`, the
     * confirmation's summary, `invalid (title)`, `refused stale`, `cancelled operator`, `error: …`, `timeout`.
     *
     * @param array<string, mixed> $result
     */
    public static function summary(array $result, bool $timedOut = false): string
    {
        if ($timedOut) {
            return 'timeout';
        }

        return match ($result['status'] ?? null) {
            'ok' => 'ok'.self::count($result['data'] ?? null),
            'needs_confirmation' => (string) ($result['summary'] ?? ''),
            'invalid' => 'invalid ('.implode(', ', array_map(fn ($i): string => is_array($i) && is_string($i['path'] ?? null) && $i['path'] !== '' ? $i['path'] : 'input', (array) ($result['issues'] ?? []))).')',
            'refused' => 'refused '.($result['code'] ?? ''),
            'cancelled' => 'cancelled '.($result['by'] ?? ''),
            default => 'error: '.($result['message'] ?? ''),
        };
    }

    /**
     * The latest part an agent's call of the conversation was sent with (the model's tool-call id), or null.
     *
     * @return array<string, string>|null
     */
    public static function ofCall(int $conversationId, string $callId): ?array
    {
        $json = DB::table('toolmark_calls')->where('conversation_id', $conversationId)->where('tool_call_id', $callId)
            ->whereNotNull('part')->orderByDesc('created_at')->value('part');
        $part = is_string($json) ? json_decode($json, true) : null;

        return is_array($part) ? $part : null;
    }

    /**
     * Broadcasts a part as `.toolmark.tool` (when `toolmark.chat_events` is on). A failed publish
     * loses only the live update (the stored tool line keeps the part), so it is reported, not thrown.
     *
     * @param array<string, string> $part
     */
    public static function publish(int $userId, int $conversationId, array $part): void
    {
        if (! config('toolmark.chat_events', true)) {
            return;
        }
        try {
            event(new ToolmarkTool($userId, $conversationId, $part));
        } catch (\Throwable $error) {
            report($error);
        }
    }

    /** `(N results)` for ok data that is a list or holds one, as the server's tool lines say it. */
    private static function count(mixed $data): string
    {
        $list = null;
        if (is_array($data) && array_is_list($data)) {
            $list = $data;
        } elseif (is_array($data)) {
            foreach ($data as $value) {
                if (is_array($value) && array_is_list($value)) {
                    $list = $value;

                    break;
                }
            }
        }

        return $list === null ? '' : ' ('.count($list).' result'.(count($list) === 1 ? '' : 's').')';
    }

    private static function short(string $text): string
    {
        return mb_strlen($text) <= self::MAX_TEXT ? $text : mb_substr($text, 0, self::MAX_TEXT - 1).'…';
    }
}
