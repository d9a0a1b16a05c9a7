<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Http\Middleware\LimitBody;
use Toolmark\Laravel\Models\Conversation;

/**
 * `POST {toolmark.routes.bridge}`: the page's results, manifests and confirmations. The route's
 * middleware gives the session, CSRF and auth checks; only the conversation's owner gets past this
 * controller (others get 403). Accepted and rejected messages are both answered 204, so a forging
 * page learns nothing; rejections are logged with their reason. A body over the protocol's limit
 * (1048576 bytes) is answered 413 `message_too_large`, as @toolmark/server does, and never parsed.
 */
final class BridgeController
{
    /** 403 unless the user owns the conversation; 413 over the size limit; otherwise 204, accepted or rejected. */
    public function __invoke(Request $request, Conversation $conversation, Bridge $bridge): Response|JsonResponse
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        // Also checked here for routes placed with Route::toolmark() without LimitBody in front.
        if (! LimitBody::within($request, Wire::MAX_MESSAGE_BYTES)) {
            $bridge->tooLarge($conversation);

            return response()->json(['error' => [
                'code' => 'message_too_large',
                'message' => 'Message over '.Wire::MAX_MESSAGE_BYTES.' bytes',
            ]], 413);
        }
        $bridge->handle($conversation, (int) $user->getAuthIdentifier(), (string) $request->getContent());

        return response()->noContent();
    }
}
