<?php

namespace App\Stand;

use Closure;
use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Illuminate\Support\ViewErrorBag;
use Symfony\Component\HttpFoundation\Response as BaseResponse;

/**
 * STAND-IN for inertia-laravel (Composer-only, unreachable here): the Inertia 3 protocol, server side.
 *
 * - A first visit gets HTML with the page object in `<script data-page="app" type="application/json">`
 *   next to `<div id="app">` (what Inertia 3 reads), plus the built assets.
 * - A visit with `X-Inertia: true` gets the page object as JSON with `X-Inertia: true` and `Vary: X-Inertia`.
 * - Partial reloads: when `X-Inertia-Partial-Component` names the rendered component, only the props in
 *   `X-Inertia-Partial-Data` (or all but `X-Inertia-Partial-Except`) are resolved and sent; props given as
 *   closures are resolved only when sent.
 * - Asset versioning: a GET whose `X-Inertia-Version` differs from the current version gets 409 with
 *   `X-Inertia-Location`, so the client does a full reload.
 * - A 302 after PUT/PATCH/DELETE becomes 303, so the browser follows it with a GET.
 * - `errors` is always sent: the validation errors Laravel flashed on the redirect back, one message a field.
 */
final class Inertia
{
    /** @var list<Closure(): array<string, mixed>> */
    private static array $shared = [];

    /** @param Closure(): array<string, mixed> $props */
    public static function share(Closure $props): void
    {
        self::$shared[] = $props;
    }

    /** The asset version: a hash of the Vite manifest (null without a build). */
    public static function version(): ?string
    {
        $manifest = public_path('build/.vite/manifest.json');

        return is_file($manifest) ? md5_file($manifest) : null;
    }

    /** The middleware half (see the class comment); HandleInertiaRequests calls it. */
    public static function handle(Request $request, Closure $next): BaseResponse
    {
        if ($request->header('X-Inertia') === 'true' && $request->isMethod('GET')
            && (string) $request->header('X-Inertia-Version', '') !== (string) self::version()) {
            return new Response('', 409, ['X-Inertia-Location' => $request->fullUrl()]);
        }
        $response = $next($request);
        $response->headers->set('Vary', 'X-Inertia');
        if ($request->header('X-Inertia') === 'true' && $response->getStatusCode() === 302
            && in_array($request->method(), ['PUT', 'PATCH', 'DELETE'], true)) {
            $response->setStatusCode(303);
        }

        return $response;
    }

    /** @param array<string, mixed> $props */
    public static function render(string $component, array $props = []): BaseResponse
    {
        $request = request();
        $all = ['errors' => self::errors($request)];
        foreach (self::$shared as $shared) {
            $all = array_merge($all, $shared());
        }
        $all = array_merge($all, $props);
        if ($request->header('X-Inertia-Partial-Component') === $component) {
            $only = array_filter(explode(',', (string) $request->header('X-Inertia-Partial-Data', '')));
            $except = array_filter(explode(',', (string) $request->header('X-Inertia-Partial-Except', '')));
            if ($only !== []) {
                $all = array_intersect_key($all, array_flip([...$only, 'errors']));
            }
            $all = array_diff_key($all, array_flip($except));
        }
        foreach ($all as $key => $value) {
            if ($value instanceof Closure) {
                $all[$key] = $value();
            }
        }
        $page = [
            'component' => $component,
            'props' => $all,
            'url' => $request->getRequestUri(),
            'version' => self::version(),
            'flash' => (object) [],
        ];
        if ($request->header('X-Inertia') === 'true') {
            return new JsonResponse($page, 200, ['X-Inertia' => 'true']);
        }

        return new Response(view('app', ['page' => $page, 'assets' => self::assets()])->render(), 200, ['Content-Type' => 'text/html; charset=UTF-8']);
    }

    /**
     * Validation errors as inertia-laravel shares them: the first message per field of the error bag
     * Laravel flashed on the redirect back (`X-Inertia-Error-Bag` names the bag, default `default`).
     */
    private static function errors(Request $request): object
    {
        $bags = $request->hasSession() ? $request->session()->get('errors') : null;
        if (! $bags instanceof ViewErrorBag) {
            return (object) [];
        }
        $bag = $bags->getBag((string) $request->header('X-Inertia-Error-Bag', 'default'));

        return (object) array_map(fn (array $messages): string => $messages[0], $bag->messages());
    }

    /** @return array{scripts: list<string>, styles: list<string>} the built entry's files */
    private static function assets(): array
    {
        $manifest = public_path('build/.vite/manifest.json');
        $entry = is_file($manifest) ? (json_decode((string) file_get_contents($manifest), true)['src/app.tsx'] ?? null) : null;

        return [
            'scripts' => $entry === null ? [] : ['/build/'.$entry['file']],
            'styles' => array_map(fn (string $css): string => '/build/'.$css, $entry['css'] ?? []),
        ];
    }
}
