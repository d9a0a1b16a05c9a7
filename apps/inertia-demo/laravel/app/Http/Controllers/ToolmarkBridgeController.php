<?php

namespace App\Http\Controllers;

use App\Jobs\ContinueAgentTurn;
use App\Jobs\RunFollowUpTurn;
use App\Models\Conversation;
use App\Toolmark\Mask;
use App\Toolmark\ToolmarkLlm;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;

final class ToolmarkBridgeController
{
    private const MAX_BYTES = 1048576;

    public function __invoke(Request $request, Conversation $conversation): Response
    {
        $raw = $request->getContent();
        $message = strlen($raw) <= self::MAX_BYTES ? json_decode($raw, true, 64) : null;
        if (! self::valid($message)) {
            return $this->reject($conversation, 'invalid', null);
        }
        $userId = (int) $request->user()->getKey();

        return match ($message['type']) {
            'manifest' => $this->manifest($conversation, $userId, $message),
            'changed' => response()->noContent(),
            'result' => $this->result($conversation, $userId, $message),
            'confirmed' => $this->confirmed($conversation, $userId, $message),
        };
    }

    /**
     * Structural checks of a page → agent message (use the published JSON Schema
     * node_modules/@toolmark/core/dist/protocol/v1/page-to-agent.json for the full check).
     */
    private static function valid(mixed $m): bool
    {
        $id = fn (mixed $v): bool => is_string($v) && $v !== '' && mb_strlen($v) <= 256;
        if (! is_array($m) || ($m['protocol'] ?? null) !== 1 || ! $id($m['clientId'] ?? null)) {
            return false;
        }

        return match ($m['type'] ?? null) {
            'manifest' => is_int($m['rev'] ?? null) && $m['rev'] >= 0 && array_is_list($m['tools'] ?? null),
            'changed' => is_int($m['rev'] ?? null) && $m['rev'] >= 0,
            'result' => $id($m['id'] ?? null) && is_string($m['result']['status'] ?? null),
            'confirmed' => $id($m['confirmId'] ?? null) && is_string($m['result']['status'] ?? null),
            default => false,
        };
    }

    /**
     * Keep the latest manifest per page load; a new page load of this conversation rebinds it.
     * Manifests can arrive out of order (each is its own POST): an older revision never replaces a newer one.
     */
    private function manifest(Conversation $conversation, int $userId, array $message): Response
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $known = DB::table('toolmark_pages')->where('client_id', $message['clientId'])->lockForUpdate()->first();
            if ($known !== null && ((int) $known->user_id !== $userId || (int) $known->conversation_id !== (int) $conversation->id)) {
                return 'mismatch';
            }
            if ($known !== null && (int) $known->rev > $message['rev']) {
                return null; // stale: a newer manifest is already stored
            }
            DB::table('toolmark_pages')->upsert([[
                'client_id' => $message['clientId'],
                'user_id' => $userId,
                'conversation_id' => $conversation->id,
                'rev' => $message['rev'],
                'tools' => ToolmarkLlm::json($message['tools']),
                'created_at' => now(),
                'updated_at' => now(),
            ]], ['client_id'], ['rev', 'tools', 'updated_at']);
            if ($known === null) {
                // Calls already sent stay bound to the old clientId until their deadline.
                $conversation->forceFill(['active_client_id' => $message['clientId']])->save();
            }

            return null;
        });

        return $outcome === null ? response()->noContent() : $this->reject($conversation, $outcome, $message['clientId']);
    }

    /** Security MUSTs 3, 4 and 5 for results. */
    private function result(Conversation $conversation, int $userId, array $message): Response
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $binding = DB::table('toolmark_calls')->where('id', $message['id'])->lockForUpdate()->first();
            if ($binding === null) {
                return 'unknown_id';
            }
            if ((int) $binding->user_id !== $userId
                || (int) $binding->conversation_id !== (int) $conversation->id
                || $binding->client_id !== $message['clientId']) {
                return 'mismatch';
            }
            if ($binding->state === 'answered') {
                return 'duplicate';
            }
            if ($binding->state === 'timed_out' || now()->greaterThan($binding->deadline_at)) {
                return 'late'; // ExpireToolmarkCall gives the agent its timeout and sends cancel
            }
            DB::table('toolmark_calls')->where('id', $binding->id)->update(['state' => 'answered', 'updated_at' => now()]);
            $result = $message['result'];
            if ($result['status'] === 'needs_confirmation' && is_string($result['confirmId'] ?? null)) {
                DB::table('toolmark_confirmations')->insertOrIgnore([
                    'confirm_id' => $result['confirmId'],
                    'user_id' => $userId,
                    'conversation_id' => $conversation->id,
                    'client_id' => $binding->client_id,
                    'call_id' => $binding->id,
                    'tool_call_id' => $binding->tool_call_id,
                    'tool' => $binding->tool,
                    'summary' => (string) ($result['summary'] ?? ''),
                    'state' => 'pending',
                    'created_at' => now(),
                    'updated_at' => now(),
                ]);
            }

            return $binding;
        });
        if (is_string($outcome)) {
            return $this->reject($conversation, $outcome, $message['id']);
        }
        ContinueAgentTurn::dispatch((int) $conversation->id, $outcome->tool_call_id, $outcome->tool, $message['result']);

        return response()->noContent();
    }

    /** A confirmed is accepted once, only for a confirmId bound from this user, conversation and page load. */
    private function confirmed(Conversation $conversation, int $userId, array $message): Response
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $binding = DB::table('toolmark_confirmations')->where('confirm_id', $message['confirmId'])->lockForUpdate()->first();
            if ($binding === null) {
                return 'unknown_confirm';
            }
            if ((int) $binding->user_id !== $userId
                || (int) $binding->conversation_id !== (int) $conversation->id
                || $binding->client_id !== $message['clientId']) {
                return 'mismatch';
            }
            if ($binding->state !== 'pending') {
                return $binding->state === 'used' ? 'duplicate_confirm' : 'expired_confirm';
            }
            DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)
                ->update(['state' => 'used', 'updated_at' => now()]);
            // The outcome joins the history as a tool result for the original call: wrapped, never a system message.
            $conversation->messages()->create([
                'role' => 'tool',
                'text' => Mask::text("confirmed {$binding->tool} ({$binding->summary}) → {$message['result']['status']}"),
                'agent' => Mask::value([
                    'role' => 'tool',
                    'toolCallId' => $binding->tool_call_id,
                    'name' => 'page_call',
                    'confirmId' => $binding->confirm_id,
                    'content' => ToolmarkLlm::json(ToolmarkLlm::wrapUntrusted($message['result'])),
                ]),
            ]);

            return $binding;
        });
        if (is_string($outcome)) {
            return $this->reject($conversation, $outcome, $message['confirmId']);
        }
        RunFollowUpTurn::dispatch((int) $conversation->id);

        return response()->noContent();
    }

    private function reject(Conversation $conversation, string $reason, ?string $id): Response
    {
        Log::warning('toolmark: rejected page message', [
            'reason' => $reason,
            'conversation' => $conversation->id,
            'id' => $id,
        ]);

        return response()->noContent();
    }
}
