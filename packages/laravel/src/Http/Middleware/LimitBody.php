<?php

namespace Toolmark\Laravel\Http\Middleware;

use Closure;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Log;
use Symfony\Component\HttpFoundation\Response;
use Toolmark\Laravel\Generated\Wire;

/**
 * Refuses a body over its route's limit before the rest of the middleware reads it (the CSRF check
 * of a JSON request decodes the whole body): the bridge route 413 `message_too_large` over 1048576
 * bytes, the chat message route 413 `body_too_large` over `toolmark.limits.message_bytes`, the grant and
 * page-gone routes 413 `body_too_large` over 4096 bytes. A
 * declared `Content-Length` over the limit is refused unread; otherwise at most the limit plus one
 * byte is read; the bridge's refusal is logged as a rejection (`invalid`, too large). The package's routes get it first when it registers them; with `Route::toolmark()`,
 * put it first in your group. Other routes pass through.
 */
final class LimitBody
{
    /** 413 with `{error: {code, message}}` over the limit, else the next middleware. */
    public function handle(Request $request, Closure $next): Response
    {
        [$max, $code, $message] = match ($request->route()?->getName()) {
            'toolmark.bridge' => [Wire::MAX_MESSAGE_BYTES, 'message_too_large', 'Message over '.Wire::MAX_MESSAGE_BYTES.' bytes'],
            'toolmark.messages' => [$bytes = (int) config('toolmark.limits.message_bytes', 65536), 'body_too_large', "Request body over {$bytes} bytes"],
            // A grant or a page-gone notice is a few names and ids: as @toolmark/server's grants route.
            'toolmark.grants.store', 'toolmark.gone' => [4096, 'body_too_large', 'Request body over 4096 bytes'],
            default => [null, '', ''],
        };
        if ($max !== null && ! self::within($request, $max)) {
            if ($code === 'message_too_large') {
                // As the bridge logs it: rejected as invalid, too large (nothing of the payload).
                $conversation = $request->route('conversation');
                Log::warning('toolmark: rejected page message', [
                    'reason' => Wire::REJECT_REASONS['invalid'],
                    'conversation' => is_object($conversation) ? $conversation->getKey() : (is_numeric($conversation) ? (int) $conversation : null),
                    'detail' => 'too large',
                ]);
            }

            return response()->json(['error' => ['code' => $code, 'message' => $message]], 413);
        }

        return $next($request);
    }

    /**
     * Whether the body is at most `$max` bytes: a declared `Content-Length` over it is refused before
     * anything is read; otherwise at most `$max + 1` bytes are read.
     */
    public static function within(Request $request, int $max): bool
    {
        $declared = $request->header('Content-Length');
        if (is_numeric($declared) && (int) $declared > $max) {
            return false;
        }
        $stream = $request->getContent(true);

        return ! is_resource($stream) || strlen((string) stream_get_contents($stream, $max + 1)) <= $max;
    }
}
