<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Support\Carbon;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Http\Middleware\LimitBody;
use Toolmark\Laravel\LimitExceeded;
use Toolmark\Laravel\Mask;
use Toolmark\Laravel\PageWait;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Models\ConversationMessage;

/**
 * `POST {toolmark.routes.messages}` with `{text}`: the user's chat message, answered 202 with its
 * id. A body over `toolmark.limits.message_bytes` is refused 413 `body_too_large` (a declared
 * `Content-Length` over it unread, otherwise read no further than one byte past it), a text over
 * `toolmark.limits.message_length` (UTF-16 code units, default 4000) 400 `message_too_long`, as
 * @toolmark/server does. A user with `toolmark.limits.turns_per_user` turns already queued or running
 * is refused 429 `too_many_turns` with `Retry-After: 5`, and the message is not stored.
 * It is stored masked for the chat and the history; the text as typed stays only in the encrypted
 * `secret_text` column until the turn ends (the model may need a card number to fill a form). The
 * turn starts after the response; the text is never queued. When a page of the conversation is
 * loading (its channel authorized, its manifest not stored yet), the turn first waits for that
 * manifest, up to `toolmark.page_wait_ms` (PageWait).
 */
final class MessageController
{
    /** How long a turn counts against the cap at most, in minutes: one that died without ending stops counting then. */
    public const TURN_COUNTS_FOR_MINUTES = 15;

    /** 403 unless the user owns the conversation, 413 or 400 over a limit, 422 for a missing text, 429 over the turn cap, else 202 `{id}`. */
    public function __invoke(Request $request, Conversation $conversation, AgentLoop $loop, PageWait $pages): JsonResponse
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        $maxBytes = (int) config('toolmark.limits.message_bytes', 65536);
        if (! LimitBody::within($request, $maxBytes)) { // also checked here for routes placed with Route::toolmark()
            return self::fail(413, 'body_too_large', "Request body over {$maxBytes} bytes");
        }
        $text = (string) $request->validate(['text' => ['required', 'string']])['text'];
        $maxLength = (int) config('toolmark.limits.message_length', 4000);
        $length = intdiv(strlen((string) mb_convert_encoding($text, 'UTF-16LE', 'UTF-8')), 2);
        if ($length > $maxLength) {
            return self::fail(400, 'message_too_long', "The message is {$length} characters long; the limit is {$maxLength}");
        }
        $maxTurns = config('toolmark.limits.turns_per_user', 8);
        if ($maxTurns !== null && self::turns($conversation->user_id) >= (int) $maxTurns) {
            throw new LimitExceeded('too_many_turns', "Too many messages waiting for the agent: at most {$maxTurns} per user; wait for its answers", 5);
        }
        $message = $conversation->messages()->create([
            'role' => 'user',
            'text' => Mask::text($text),
            'agent' => ['role' => 'user', 'text' => Mask::text($text)],
            'secret_text' => $text, // the `encrypted` cast encrypts it
        ]);
        // A page that is loading (PageWait) gets up to `toolmark.page_wait_ms` to send its manifest first.
        dispatch(fn () => $loop->step($pages->await($conversation)))->afterResponse();

        return response()->json(['id' => $message->id], 202);
    }

    /**
     * The user's turns queued or running: their messages whose turn has not ended (the text as typed
     * is kept until then), in all their conversations, from the last TURN_COUNTS_FOR_MINUTES minutes.
     */
    private static function turns(mixed $userId): int
    {
        return ConversationMessage::query()
            ->where('role', 'user')
            ->whereNotNull('secret_text')
            ->where('created_at', '>=', Carbon::now()->subMinutes(self::TURN_COUNTS_FOR_MINUTES))
            ->whereIn('conversation_id', Conversation::query()->select('id')->where('user_id', $userId))
            ->count();
    }

    /** The error body of @toolmark/server: `{error: {code, message}}`. */
    private static function fail(int $status, string $code, string $message): JsonResponse
    {
        return response()->json(['error' => ['code' => $code, 'message' => $message]], $status);
    }
}
