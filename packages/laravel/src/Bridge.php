<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;
use Toolmark\Laravel\Events\CallCompleted;
use Toolmark\Laravel\Events\ConfirmationRequested;
use Toolmark\Laravel\Events\ConfirmationResolved;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Models\Conversation;

/**
 * The server's rules for page → agent messages. Every message is hostile until checked: it must be
 * well-formed; a result must answer a call id this server bound to the same user, conversation and
 * page load, once, before its deadline; a `confirmed` must carry a confirmId bound from an accepted
 * needs_confirmation of the same user, conversation and page load, and is accepted once. Each
 * check runs in a transaction with the binding row locked, so two copies cannot both pass.
 */
class Bridge
{
    /** The largest page message accepted, in bytes. */
    public const MAX_BYTES = 1048576;

    /** The agent's outcome of a call whose deadline passed. */
    public const TIMED_OUT = ['status' => 'error', 'message' => 'Timed out: the page did not answer in time'];

    /** What the agent is told for a confirmation whose page is gone: the confirmation_expired refusal. */
    public const EXPIRED = [
        'status' => 'refused',
        'code' => 'confirmation_expired',
        'message' => 'The confirmation expired or was already used',
    ];

    /** Built by the container. */
    public function __construct(private readonly Toolmark $toolmark) {}

    /**
     * Handles one raw page message for the conversation, posted by the signed-in user with this id
     * (the caller has checked that the user owns the conversation). Returns null when it was
     * accepted, or the reason it was rejected (invalid, mismatch, unknown_id, duplicate, late,
     * unknown_confirm, duplicate_confirm, expired_confirm); rejections are logged without the payload.
     */
    public function handle(Conversation $conversation, int $userId, string $raw): ?string
    {
        $message = strlen($raw) <= self::MAX_BYTES ? json_decode($raw, true, 64) : null;
        if (! self::valid($message)) {
            return $this->reject($conversation, 'invalid', null);
        }

        return match ($message['type']) {
            'manifest' => $this->manifest($conversation, $userId, $message),
            'changed' => null,
            'result' => $this->result($conversation, $userId, $message),
            'confirmed' => $this->confirmed($conversation, $userId, $message),
        };
    }

    /** Structural checks of a page → agent message. */
    public static function valid(mixed $m): bool
    {
        $id = fn (mixed $v): bool => is_string($v) && $v !== '' && mb_strlen($v) <= 256;
        if (! is_array($m) || ($m['protocol'] ?? null) !== 1 || ! $id($m['clientId'] ?? null)) {
            return false;
        }

        return match ($m['type'] ?? null) {
            'manifest' => is_int($m['rev'] ?? null) && $m['rev'] >= 0 && is_array($m['tools'] ?? null) && array_is_list($m['tools']),
            'changed' => is_int($m['rev'] ?? null) && $m['rev'] >= 0,
            'result' => $id($m['id'] ?? null) && is_array($m['result'] ?? null) && is_string($m['result']['status'] ?? null),
            'confirmed' => $id($m['confirmId'] ?? null) && is_array($m['result'] ?? null) && is_string($m['result']['status'] ?? null),
            default => false,
        };
    }

    /**
     * Keeps the latest manifest per page load; a new page load of this conversation rebinds it.
     * Manifests can arrive out of order (each is its own POST): an older revision never replaces a newer one.
     */
    private function manifest(Conversation $conversation, int $userId, array $message): ?string
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $known = DB::table('toolmark_pages')->where('client_id', $message['clientId'])->lockForUpdate()->first();
            if ($known !== null && ((int) $known->user_id !== $userId || (int) $known->conversation_id !== (int) $conversation->id)) {
                return 'mismatch';
            }
            if ($known !== null && (int) $known->rev > $message['rev']) {
                return null; // a newer manifest is already stored
            }
            DB::table('toolmark_pages')->upsert([[
                'client_id' => $message['clientId'],
                'user_id' => $userId,
                'conversation_id' => $conversation->id,
                'rev' => $message['rev'],
                'tools' => Llm::json($message['tools']),
                'created_at' => now(),
                'updated_at' => now(),
            ]], ['client_id'], ['rev', 'tools', 'updated_at']);
            if ($known === null) {
                // Calls already sent stay bound to the old page load until their deadline.
                $conversation->forceFill(['active_client_id' => $message['clientId']])->save();
            }

            return null;
        });

        return $outcome === null ? null : $this->reject($conversation, $outcome, $message['clientId']);
    }

    private function result(Conversation $conversation, int $userId, array $message): ?string
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
                return 'late'; // the deadline job gives the agent its timeout and sends cancel
            }
            DB::table('toolmark_calls')->where('id', $binding->id)->update(['state' => 'answered', 'updated_at' => now()]);
            $result = $message['result'];
            if ($binding->kind === 'call' && $result['status'] === 'needs_confirmation' && is_string($result['confirmId'] ?? null)
                && $result['confirmId'] !== '' && mb_strlen($result['confirmId']) <= 256) {
                DB::table('toolmark_confirmations')->insertOrIgnore([
                    'confirm_id' => $result['confirmId'],
                    'user_id' => $userId,
                    'conversation_id' => $conversation->id,
                    'client_id' => $binding->client_id,
                    'call_id' => $binding->id,
                    'tool_call_id' => $binding->tool_call_id,
                    'tool' => $binding->tool,
                    'summary' => Mask::text((string) ($result['summary'] ?? '')),
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
        $result = $message['result'];
        if ($outcome->origin === 'agent') {
            ContinueAgentTurn::dispatch((int) $conversation->id, $outcome->tool_call_id, $outcome->tool, $result);
        }
        if ($result['status'] === 'needs_confirmation' && is_string($result['confirmId'] ?? null)) {
            $this->toolmark->notify(new ConfirmationRequested(
                (int) $conversation->id,
                $outcome->id,
                $result['confirmId'],
                $outcome->tool,
                Mask::text((string) ($result['summary'] ?? '')),
            ));
        }
        $this->toolmark->notify(new CallCompleted((int) $conversation->id, $outcome->id, $outcome->tool, Mask::value($result), $outcome->origin));

        return null;
    }

    private function confirmed(Conversation $conversation, int $userId, array $message): ?string
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
            $binding->origin = (string) (DB::table('toolmark_calls')->where('id', $binding->call_id)->value('origin') ?? 'agent');
            if ($binding->origin === 'agent') {
                // The outcome joins the history as a tool result for the original call: wrapped, never a system message.
                $conversation->messages()->create([
                    'role' => 'tool',
                    'text' => Mask::text("confirmed {$binding->tool} ({$binding->summary}) → {$message['result']['status']}"),
                    'agent' => Mask::value([
                        'role' => 'tool',
                        'toolCallId' => $binding->tool_call_id,
                        'name' => 'page_call',
                        'confirmId' => $binding->confirm_id,
                        'content' => Llm::json(Llm::wrapUntrusted($message['result'])),
                    ]),
                ]);
            }

            return $binding;
        });
        if (is_string($outcome)) {
            return $this->reject($conversation, $outcome, $message['confirmId']);
        }
        if ($outcome->origin === 'agent') {
            RunFollowUpTurn::dispatch((int) $conversation->id);
        }
        $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $outcome->confirm_id, $outcome->tool, Mask::value($message['result'])));

        return null;
    }

    /**
     * The page load with this clientId is gone (reloaded, closed, navigated away): its pending
     * confirmations can never be answered, so they expire at once, each with a chat line and the
     * confirmation_expired refusal as the agent's tool result. Only this user's and this
     * conversation's confirmations of that page load are touched. Returns how many expired.
     */
    public function pageGone(Conversation $conversation, int $userId, string $clientId): int
    {
        $expired = DB::transaction(function () use ($conversation, $userId, $clientId): array {
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
                if (DB::table('toolmark_calls')->where('id', $binding->call_id)->value('origin') === 'app') {
                    continue; // not the agent's call: nothing joins its history
                }
                $conversation->messages()->create([
                    'role' => 'tool',
                    'text' => Mask::text("confirmation expired: {$binding->summary} (the page that asked for it is gone)"),
                    'agent' => Mask::value([
                        'role' => 'tool',
                        'toolCallId' => $binding->tool_call_id,
                        'name' => 'page_call',
                        'confirmId' => $binding->confirm_id,
                        'content' => Llm::json(Llm::wrapUntrusted(self::EXPIRED)),
                    ]),
                ]);
            }

            return $pending->all();
        });
        foreach ($expired as $binding) {
            $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $binding->confirm_id, $binding->tool, self::EXPIRED));
        }

        return count($expired);
    }

    private function reject(Conversation $conversation, string $reason, ?string $id): string
    {
        Log::warning('toolmark: rejected page message', [
            'reason' => $reason,
            'conversation' => $conversation->id,
            'id' => $id === null ? null : Mask::text($id),
        ]);

        return $reason;
    }
}
