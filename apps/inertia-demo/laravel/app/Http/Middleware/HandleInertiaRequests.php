<?php

namespace App\Http\Middleware;

use App\Events\ToolmarkChat;
use App\Stand\Inertia;
use Closure;
use Illuminate\Http\Request;

/**
 * What inertia-laravel's HandleInertiaRequests does, on the stand-in adapter: the asset version and
 * the shared props, here the bridge settings `toolmark` (user, conversation, broadcaster; no secret)
 * and the chat.
 */
final class HandleInertiaRequests
{
    public function handle(Request $request, Closure $next)
    {
        Inertia::share(fn (): array => [
            'auth' => ['user' => $request->user()?->only(['id', 'name'])],
            // The chat (masked texts only), resolved only when sent; new lines arrive over Echo (App\Events\ToolmarkChat).
            'chat' => fn (): array => $this->chat($request),
            'toolmark' => $request->user() === null ? null : [
                'userId' => $request->user()->getKey(),
                'conversationId' => $request->session()->get('conversation_id'),
                'broadcaster' => [
                    'key' => config('broadcasting.connections.pusher-http.key'),
                    'wsHost' => config('broadcasting.connections.pusher-http.host'),
                    'wsPort' => config('broadcasting.connections.pusher-http.port'),
                ],
            ],
        ]);

        return Inertia::handle($request, $next);
    }

    /** @return list<array{id: int, role: string, text: string}> */
    private function chat(Request $request): array
    {
        $id = $request->session()->get('conversation_id');
        $conversation = $id === null ? null : $request->user()?->conversations()->find($id);

        return $conversation === null ? [] : $conversation->messages()->orderBy('id')
            ->whereIn('role', ToolmarkChat::ROLES)->get(['id', 'role', 'text'])
            ->filter(fn ($m): bool => $m->text !== '')->values()->all();
    }
}
