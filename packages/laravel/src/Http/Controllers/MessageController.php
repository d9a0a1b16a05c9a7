<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Mask;
use Toolmark\Laravel\Models\Conversation;

/**
 * `POST {toolmark.routes.messages}` with `{text}` (at most 4000 characters): the user's chat
 * message, answered 202 with its id. It is stored masked for the chat and the history; the text as
 * typed stays only in the encrypted `secret_text` column until the turn ends (the model may need
 * a card number to fill a form). The turn starts after the response; the text is never queued.
 */
final class MessageController
{
    /** 403 unless the user owns the conversation, 422 for a missing or too long text, else 202 `{id}`. */
    public function __invoke(Request $request, Conversation $conversation, AgentLoop $loop): JsonResponse
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        $text = (string) $request->validate(['text' => ['required', 'string', 'max:4000']])['text'];
        $message = $conversation->messages()->create([
            'role' => 'user',
            'text' => Mask::text($text),
            'agent' => ['role' => 'user', 'text' => Mask::text($text)],
            'secret_text' => $text, // the `encrypted` cast encrypts it
        ]);
        dispatch(fn () => $loop->step($conversation))->afterResponse();

        return response()->json(['id' => $message->id], 202);
    }
}
