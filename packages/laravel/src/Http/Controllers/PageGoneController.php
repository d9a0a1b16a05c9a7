<?php

namespace Toolmark\Laravel\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Models\Conversation;

/**
 * `POST {toolmark.routes.gone}` with `{clientId}`: the page load is gone (a reload, a closed tab),
 * so its pending confirmations expire at once. Only the owner may post (others get 403); a missing
 * or malformed clientId is ignored (204).
 */
final class PageGoneController
{
    /** 403 unless the user owns the conversation; otherwise 204. */
    public function __invoke(Request $request, Conversation $conversation, Bridge $bridge): Response
    {
        $user = $request->user();
        abort_unless($user !== null && $conversation->isOwnedBy($user->getAuthIdentifier()), 403);
        $clientId = $request->input('clientId');
        if (is_string($clientId) && $clientId !== '' && mb_strlen($clientId) <= 256) {
            $bridge->pageGone($conversation, (int) $user->getAuthIdentifier(), $clientId);
        }

        return response()->noContent();
    }
}
