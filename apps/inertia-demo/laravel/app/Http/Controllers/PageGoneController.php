<?php

namespace App\Http\Controllers;

use App\Models\Conversation;
use App\Toolmark\Mask;
use App\Toolmark\ToolmarkLlm;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Illuminate\Support\Facades\DB;

/**
 * The demo's "this page load is gone" signal: the page POSTs its clientId when it unloads (a reload,
 * a closed tab, a visit elsewhere). Its pending confirmations can never be answered now, so they
 * are expired at once (protocol v1: a gone page's confirmIds count as expired), and each gets a
 * chat line and a tool result for the agent, as the Node reference server does. Only the signed-in
 * owner's conversation and that page load's own confirmations are touched; anything else is ignored.
 */
final class PageGoneController
{
    /** What the agent is told for each: core's `confirmation_expired` refusal, word for word. */
    public const EXPIRED = [
        'status' => 'refused',
        'code' => 'confirmation_expired',
        'message' => 'The confirmation expired or was already used',
    ];

    public function __invoke(Request $request, Conversation $conversation): Response
    {
        $clientId = $request->input('clientId');
        if (! is_string($clientId) || $clientId === '' || mb_strlen($clientId) > 256) {
            return response()->noContent();
        }
        $userId = (int) $request->user()->getKey();
        DB::transaction(function () use ($conversation, $userId, $clientId): void {
            $pending = DB::table('toolmark_confirmations')
                ->where('conversation_id', $conversation->id)
                ->where('user_id', $userId)
                ->where('client_id', $clientId)
                ->where('state', 'pending')
                ->orderBy('created_at')
                ->lockForUpdate()
                ->get();
            foreach ($pending as $binding) {
                DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)
                    ->update(['state' => 'expired', 'updated_at' => now()]);
                $conversation->messages()->create([
                    'role' => 'tool',
                    'text' => Mask::text("confirmation expired: {$binding->summary} (the page that asked for it is gone)"),
                    'agent' => Mask::value([
                        'role' => 'tool',
                        'toolCallId' => $binding->tool_call_id,
                        'name' => 'page_call',
                        'confirmId' => $binding->confirm_id,
                        'content' => ToolmarkLlm::json(ToolmarkLlm::wrapUntrusted(self::EXPIRED)),
                    ]),
                ]);
            }
        });

        return response()->noContent();
    }
}
