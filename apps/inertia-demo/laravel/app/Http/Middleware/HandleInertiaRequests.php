<?php

namespace App\Http\Middleware;

use App\Stand\Inertia;
use Closure;
use Illuminate\Http\Request;
use Toolmark\Laravel\Facades\Toolmark;

/**
 * What inertia-laravel's HandleInertiaRequests does, on the stand-in adapter: the asset version and
 * the shared props, here the bridge settings `toolmark` (user, conversation, channel, broadcaster;
 * no secret: the package's one line) and the chat.
 */
final class HandleInertiaRequests
{
    public function handle(Request $request, Closure $next)
    {
        Inertia::share(fn (): array => [
            'auth' => ['user' => $request->user()?->only(['id', 'name'])],
            // The chat (masked texts only), resolved only when sent; new lines arrive over Echo (ToolmarkChat).
            'chat' => fn (): array => $this->chat($request),
            'toolmark' => Toolmark::sharedProps($request),
        ]);

        return Inertia::handle($request, $next);
    }

    /** @return list<array{id: int, role: string, text: string, messageId?: string, part?: array<string, string>}> the lines, tool lines with their parts */
    private function chat(Request $request): array
    {
        return Toolmark::currentConversation($request)?->chatLines() ?? [];
    }
}
