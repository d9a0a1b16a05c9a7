<?php

namespace App\Http\Controllers;

use App\Models\Conversation;
use App\Toolmark\AgentLoop;
use App\Toolmark\Mask;
use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;

final class ChatController
{
    public function store(Request $request): JsonResponse
    {
        $conversation = $request->user()->conversations()->create();

        return response()->json(['id' => $conversation->id], 201);
    }

    public function message(Request $request, Conversation $conversation, AgentLoop $loop): JsonResponse
    {
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
