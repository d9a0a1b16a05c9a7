<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Models\Conversation;

/**
 * `POST {toolmark.routes.bridge}`: the page's results, manifests and confirmations. The route's
 * middleware gives the session, CSRF and auth checks; only the conversation's owner gets past this
 * controller (others get 403). Accepted and rejected messages are both answered 204, so a forging
 * page learns nothing; rejections are logged with their reason.
 */
final class BridgeController
{
    /** 403 unless the user owns the conversation; otherwise 204, accepted or rejected. */
    public function __invoke(Request $request, Conversation $conversation, Bridge $bridge): Response
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        $bridge->handle($conversation, (int) $user->getAuthIdentifier(), (string) $request->getContent());

        return response()->noContent();
    }
}
