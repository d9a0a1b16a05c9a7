<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Mask;
use Toolmark\Laravel\Models\Conversation;

/**
 * `POST {toolmark.routes.messages}` with `{text}`: the user's chat message, answered 202 with its
 * id. A body over `toolmark.limits.message_bytes` is refused 413 `body_too_large` unread, a text
 * over `toolmark.limits.message_length` (UTF-16 code units, default 4000) 413 `message_too_long`.
 * It is stored masked for the chat and the history; the text as typed stays only in the encrypted
 * `secret_text` column until the turn ends (the model may need a card number to fill a form). The
 * turn starts after the response; the text is never queued.
 */
final class MessageController
{
    /** 403 unless the user owns the conversation, 413 over a limit, 422 for a missing text, else 202 `{id}`. */
    public function __invoke(Request $request, Conversation $conversation, AgentLoop $loop): JsonResponse
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        $maxBytes = (int) config('toolmark.limits.message_bytes', 65536);
        $declared = $request->header('Content-Length');
        if ((is_numeric($declared) && (int) $declared > $maxBytes) || strlen((string) $request->getContent()) > $maxBytes) {
            return self::fail(413, 'body_too_large', "Request body over {$maxBytes} bytes");
        }
        $text = (string) $request->validate(['text' => ['required', 'string']])['text'];
        $maxLength = (int) config('toolmark.limits.message_length', 4000);
        $length = intdiv(strlen((string) mb_convert_encoding($text, 'UTF-16LE', 'UTF-8')), 2);
        if ($length > $maxLength) {
            return self::fail(413, 'message_too_long', "The message is {$length} characters long; the limit is {$maxLength}");
        }
        $message = $conversation->messages()->create([
            'role' => 'user',
            'text' => Mask::text($text),
            'agent' => ['role' => 'user', 'text' => Mask::text($text)],
            'secret_text' => $text, // the `encrypted` cast encrypts it
        ]);
        dispatch(fn () => $loop->step($conversation))->afterResponse();

        return response()->json(['id' => $message->id], 202);
    }

    /** The error body of @toolmark/server: `{error: {code, message}}`. */
    private static function fail(int $status, string $code, string $message): JsonResponse
    {
        return response()->json(['error' => ['code' => $code, 'message' => $message]], $status);
    }
}
