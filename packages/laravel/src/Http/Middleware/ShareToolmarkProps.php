<?php

namespace Toolmark\Laravel\Http\Middleware;

use Closure;
use Illuminate\Http\Request;
use Toolmark\Laravel\Toolmark;

/**
 * Shares the prop `toolmark` (what `@toolmark/inertia` reads: user, conversation, channel, bridge
 * URL, broadcaster settings) with every Inertia response, through inertia-laravel's
 * `Inertia::share`. Add it to the `web` group after your HandleInertiaRequests, or put the same
 * line in its `share()`: `'toolmark' => fn () => Toolmark::sharedProps($request)`. Without
 * inertia-laravel installed it does nothing.
 */
final class ShareToolmarkProps
{
    /** Built by the container. */
    public function __construct(private readonly Toolmark $toolmark) {}

    /** Shares the prop (resolved only when Inertia sends props), then goes on. */
    public function handle(Request $request, Closure $next): mixed
    {
        if (class_exists('Inertia\\Inertia')) {
            \Inertia\Inertia::share('toolmark', fn (): ?array => $this->toolmark->sharedProps($request));
        }

        return $next($request);
    }
}
